"""`python -m engine evolve --strategy llm` end to end: the real CLI in a subprocess, the real
worker under the Triton interpreter, the small fixture template, and a real OpenAI-compatible
endpoint on 127.0.0.1 that answers as a model would. Options refused before anything runs are
answered by the CLI in the test process (tests/cli_in_process.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from engine.llm.transcript import read_calls
from engine.store.reader import read_records
from tests.cli_in_process import run_cli
from tests.llm_endpoint import ChatEndpoint, genomes_answer

REPO = Path(__file__).resolve().parent.parent
SMALL = "tests/fixtures/templates/sparse_mla_small.triton.j2"


def without_openai(**openai_env: str) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")} | openai_env


def engine(*args: str, **openai_env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=900, env=without_openai(**openai_env), check=False)


def refused(*args: str, **openai_env: str) -> subprocess.CompletedProcess:
    """A command refused before any worker starts, answered in this process (tests/cli_in_process.py)."""
    return run_cli(*args, env=without_openai(**openai_env))


def answer(body) -> str:
    situation = body["messages"][-1]["content"]
    if "Your genomes of call" not in situation:  # the first call: one genome outside the space
        return genomes_answer({"BLOCK_H": 32}, {"BLOCK_H": 48})
    if '"NUM_WARPS":8' not in situation:
        return genomes_answer({"NUM_WARPS": 8})
    return genomes_answer({"NUM_WARPS": 8, "BLOCK_K": 64})


def test_an_llm_proposes_through_a_real_endpoint_and_every_call_is_on_record(tmp_path):
    out = tmp_path / "run"
    with ChatEndpoint(answer) as endpoint:
        llm = ["--strategy", "llm", "--llm-model", "test-model", "--llm-base-url", endpoint.base_url,
               "--llm-batch", "2", "--device", "cpu", "--out", str(out), "--seed", "5", SMALL]
        first = engine("evolve", "--budget", "4", *llm)
        assert first.returncode == 0, first.stderr
        assert "[llm] call 1: 2 genomes" in first.stderr
        resumed = engine("evolve", "--budget", "5", "--resume", *llm)
        assert resumed.returncode == 0, resumed.stderr
    rows = [r for r in read_records(out) if r["kind"] == "genome"]
    assert [r["operator"] for r in rows] == ["default", "llm:1", "llm:1", "llm:2", "llm:3"]
    assert all(r["strategy"] == "llm" for r in rows)
    invalid = rows[2]
    assert invalid["status"] == "invalid_genome" and "BLOCK_H=48" in invalid["error"]
    assert json.loads(rows[3]["params_json"])["NUM_WARPS"] == 8
    assert all(r["status"] == "ok" for r in rows if r is not invalid), [r["error"] for r in rows]
    calls = read_calls(out / "llm")
    assert [c["call"] for c in calls] == [1, 2, 3]
    assert [c["messages"] for c in calls] == [r["messages"] for r in endpoint.requests]
    # the second call saw what became of the first: its genomes' results, the invalid one's
    # reason, and the baseline
    situation = calls[1]["messages"][-1]["content"]
    assert f"- {rows[1]['genome_id']} {{\"BLOCK_H\":32}}: score" in situation
    assert '{"BLOCK_H":48}: invalid_genome, outside the space: gene BLOCK_H=48 is not one of [32, 64]' in situation
    assert f"The default genome ({rows[0]['genome_id']}" in situation
    assert "no hardware sheet" in calls[0]["messages"][1]["content"]  # a CPU run: no GPU sheet to show
    shown = engine("show", str(out))
    assert "llm: 3 calls to test-model (0 failed, 0 unreadable), 4 genomes proposed (0 repeats)" in shown.stdout
    # run.json keeps the options a resume takes when the command leaves them out (the key's variable, no key)
    config = json.loads((out / "run.json").read_text())
    noted = config["search"]["llm"]
    assert config["search"]["seed"] == 5 and noted["llm_model"] == "test-model" and noted["llm_batch"] == 2
    assert noted["llm_base_url"] == endpoint.base_url and noted["llm_api_key_env"] == "OPENAI_API_KEY"
    for name, value in [("llm_batch", "two"), ("llm_batch", 0), ("llm_partner", "annealing"), ("llm_timeout_s", -5)]:
        (out / "run.json").write_text(json.dumps(config | {"search": config["search"] | {
            "llm": noted | {name: value}}}))
        damaged = refused("evolve", SMALL, "--resume", "--device", "cpu", "--out", str(out))
        assert damaged.returncode == 2, damaged.stderr
        assert damaged.stderr == (f"engine: error: {out / 'run.json'}: search.llm.{name} {value!r} is not a value of "
                                  f"--{name.replace('_', '-')}\n")
    # a context file noted by the run and since removed: the error says how to go on without it
    gone = tmp_path / "gone.md"
    (out / "run.json").write_text(json.dumps(config | {"search": config["search"] | {
        "llm": noted | {"llm_context": [str(gone)]}}}))
    moved = refused("evolve", SMALL, "--resume", "--device", "cpu", "--out", str(out))
    assert moved.returncode == 2 and moved.stderr.startswith(f"engine: error: --llm-context: no such file {gone} ")
    assert "--llm-forget llm-context to go without it" in moved.stderr
    both = refused("evolve", SMALL, "--resume", "--device", "cpu", "--out", str(out), "--llm-forget", "llm-context",
                   "--llm-context", str(gone))
    assert both.returncode == 2 and "--llm-context: named and forgotten (--llm-forget) at once" in both.stderr
    fresh = refused("evolve", SMALL, "--strategy", "llm", "--llm-model", "m", "--llm-forget", "llm-context",
                    "--device", "cpu", "--out", str(tmp_path / "fresh"))
    assert fresh.returncode == 2 and "--llm-forget applies to --resume" in fresh.stderr


def test_a_forgotten_option_is_not_taken_from_the_run_and_the_rest_are():
    import argparse

    from engine.llm import options

    args = argparse.Namespace(**{name: None for name in options.FIELDS}, llm_forget=["llm-context", "llm-calls"])
    options.take_recorded(args, {"llm_model": "m", "llm_context": ["/gone.md"], "llm_calls": 3, "llm_batch": 2},
                          "run.json")
    assert (args.llm_model, args.llm_batch, args.llm_context, args.llm_calls) == ("m", 2, None, None)
    assert args.llm_from_run == ["llm_model", "llm_batch"]
    # a damaged value forgotten (or replaced) is left where it is, not refused
    args = argparse.Namespace(**{name: None for name in options.FIELDS}, llm_forget=["llm-calls"])
    args.llm_batch = 3
    options.take_recorded(args, {"llm_model": "m", "llm_calls": "many", "llm_batch": 0}, "run.json")
    assert (args.llm_calls, args.llm_batch) == (None, 3)


def test_llm_options_are_checked_before_anything_runs(tmp_path):
    no_model = refused("evolve", SMALL, "--strategy", "llm", "--device", "cpu", "--out", str(tmp_path / "a"))
    assert no_model.returncode == 2 and "--strategy llm needs --llm-model" in no_model.stderr
    stray = refused("evolve", SMALL, "--llm-calls", "3", "--device", "cpu", "--out", str(tmp_path / "b"))
    assert stray.returncode == 2 and "--llm-calls applies to --strategy llm, not to tpe" in stray.stderr
    missing = refused("evolve", SMALL, "--strategy", "llm", "--llm-model", "m", "--llm-context", "nope.md",
                     "--device", "cpu", "--out", str(tmp_path / "c"))
    assert missing.returncode == 2 and "--llm-context: no such file nope.md" in missing.stderr
    extra = refused("evolve", SMALL, "--strategy", "llm", "--llm-model", "m", "--llm-extra", '{"messages": []}',
                   "--device", "cpu", "--out", str(tmp_path / "d"))
    assert extra.returncode == 2 and "--llm-extra: ['messages'] are the strategy's to set" in extra.stderr
    for limit in ("nan", "inf", "0"):
        timeout = refused("evolve", SMALL, "--strategy", "llm", "--llm-model", "m", "--llm-timeout-s", limit,
                         "--llm-base-url", "http://127.0.0.1:8000/v1", "--device", "cpu", "--out", str(tmp_path / "e"))
        assert timeout.returncode == 2 and f"--llm-timeout-s: '{limit}': a positive number of seconds" in timeout.stderr
    assert not any(tmp_path.iterdir())  # refused runs leave no folder


def test_a_wrong_endpoint_url_or_key_setting_is_named_before_anything_runs(tmp_path):
    llm = ("evolve", SMALL, "--strategy", "llm", "--llm-model", "m", "--device", "cpu", "--out", str(tmp_path / "run"))
    local = ("--llm-base-url", "http://127.0.0.1:8000/v1")
    for args, env, error in [
            (("--llm-base-url", "127.0.0.1:8000/v1"), {},
             "--llm-base-url '127.0.0.1:8000/v1': not an http(s) URL, e.g. http://127.0.0.1:8000/v1"),
            ((), {"OPENAI_BASE_URL": ""}, "OPENAI_BASE_URL '': not an http(s) URL"),
            ((), {}, "OPENAI_API_KEY is not set, and OpenAI's API (no --llm-base-url, no OPENAI_BASE_URL) needs a key"),
            ((*local, "--llm-api-key-env", "KG_TEST_UNSET_KEY"), {},
             "--llm-api-key-env KG_TEST_UNSET_KEY: that environment variable is not set or empty"),
            ((*local, "--llm-api-key-env", ""), {}, "--llm-api-key-env '': the name of an environment variable"),
            ((*local, "--llm-api-key-env", "KG_TEST_KEY"), {"KG_TEST_KEY": "sk-test-0123456789\r"},
             "KG_TEST_KEY: the key has a character an HTTP header cannot carry"),
            ((*local, "--llm-api-key-env", "KG_TEST_KEY"), {"KG_TEST_KEY": "sk-tést-0123456789"},
             "KG_TEST_KEY: the key has a character an HTTP header cannot carry")]:
        done = refused(*llm, *args, **env)
        assert done.returncode == 2 and done.stderr.startswith(f"engine: error: {error}"), done.stderr
        assert len(done.stderr.splitlines()) == 1  # one line, no traceback, no worker's output
        assert "0123456789" not in done.stderr  # a key is never shown
    assert not any(tmp_path.iterdir())  # no worker started, no folder made


def test_an_unreachable_endpoint_stops_the_run_and_keeps_its_rows(tmp_path):
    closed = ChatEndpoint(lambda body: "")
    closed.server.server_close()
    out = tmp_path / "run"
    done = engine("evolve", SMALL, "--strategy", "llm", "--llm-model", "m", "--llm-base-url", closed.base_url,
                  "--budget", "3", "--device", "cpu", "--out", str(out))
    assert done.returncode == 2 and "cannot connect" in done.stderr
    assert [r["operator"] for r in read_records(out)] == ["reference", "default"]
    assert "cannot connect" in read_calls(out / "llm")[0]["error"]


def test_an_llm_rewrites_a_code_region_and_the_harness_judges_the_rewrite(tmp_path):
    from engine.template import load_template
    from tests.engine.test_code_regions import regions_template

    path = regions_template(tmp_path)
    region = load_template(path).regions["online_softmax"]
    rescaled = "acc = tl.dot(p.to(k_nope.dtype), k_nope, acc * alpha[:, None])"
    assert rescaled in region
    same = region.replace("alpha = tl.exp2(m_i - m_safe)", "alpha = tl.exp2(m_i - m_safe)  # rows: {{ BLOCK_K }}")
    wrong = region.replace(rescaled, "acc = tl.dot(p.to(k_nope.dtype), k_nope, acc)")  # no rescale
    first = json.dumps({"genomes": [{"params": {}, "code": {"online_softmax": same}, "why": "same math"},
                                    {"params": {}, "code": {"online_softmax": wrong}, "why": "skip the rescale"},
                                    {"params": {}, "code": {"online_softmax": "{{ ''.__class__ }}"}},
                                    {"params": {}, "code": {"epilogue": "x"}}]})
    out = tmp_path / "run"
    with ChatEndpoint(lambda body: first if len(endpoint.requests) == 1 else genomes_answer({"NUM_WARPS": 8})) as endpoint:
        done = engine("evolve", str(path), "--strategy", "llm", "--llm-model", "m", "--llm-base-url", endpoint.base_url,
                      "--budget", "6", "--device", "cpu", "--out", str(out))
    assert done.returncode == 0, done.stderr
    coded = [r for r in read_records(out) if r["operator"] == "llm:1"]
    assert [r["status"] for r in coded] == ["ok", "incorrect", "render_error", "invalid_genome"], \
        [(r["status"], r["error"]) for r in coded]
    assert json.loads(coded[0]["code_json"]) == {"online_softmax": same}
    assert "refused by the sandbox" in coded[2]["error"]
    assert "unknown code regions ['epilogue']" in coded[3]["error"]
    # the worker ran the rewritten region, rendered with the genome's genes
    assert any("alpha = tl.exp2(m_i - m_safe)  # rows: 128" in k.read_text() for k in (out / "kernels").glob("*.py"))
    system, _, situation = (m["content"] for m in read_calls(out / "llm")[1]["messages"])
    assert "code regions, its Jinja blocks, may be rewritten: online_softmax" in system
    assert f"### The rewritten regions of {coded[0]['genome_id']}" in situation and "rows: {{ BLOCK_K }}" in situation
    assert f"{coded[1]['genome_id']} incorrect (the defaults) +code online_softmax" in situation
    shown = engine("show", str(out))
    assert f"{coded[0]['genome_id']}  " in shown.stdout and "+code online_softmax" in shown.stdout
    assert "operators: llm 5 (2 ok), default 1 (1 ok)" in shown.stdout
    audited = engine("audit", str(out), "--top", "3", "--device", "cpu")  # renders each genome's own code again
    assert audited.returncode == 0 and f"{coded[0]['genome_id']}  score" in audited.stdout, audited.stdout
