"""CI's evolve run: the real template (the slice's sweep: the small fixture), the real CLI, the
worker under the Triton interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from engine.store.reader import read_records
from tests.cli_in_process import run_cli

REPO = Path(__file__).resolve().parent.parent


def engine(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=900)


def test_evolve_on_the_cpu_then_resume_then_show(tmp_path):
    out = tmp_path / "run"
    first = engine("evolve", "templates/sparse_mla.triton.j2", "--budget", "2", "--device", "cpu",
                   "--out", str(out), "--seed", "4")
    assert first.returncode == 0, first.stderr
    assert "[   2/2]" in first.stderr  # live progress, one line per attempt
    resumed = engine("evolve", "templates/sparse_mla.triton.j2", "--budget", "3", "--device", "cpu",
                     "--out", str(out), "--seed", "4", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    records = read_records(out)
    genomes = [r for r in records if r["kind"] == "genome"]
    assert len(genomes) == 3 and len({r["genome_id"] for r in genomes}) == 3
    assert all(r["status"] == "ok" for r in genomes), [r["error"] for r in genomes]
    assert all(r["cpu_row"] for r in records)
    shown = engine("show", str(out))
    assert shown.returncode == 0
    assert "best genome per workload" in shown.stdout and "b4_ctx4k" in shown.stdout
    assert "CPU rows" in shown.stdout


def test_eval_prints_the_record_of_one_genome(tmp_path):
    done = engine("eval", "templates/sparse_mla.triton.j2", "--device", "cpu",
                  "--genome", '{"NUM_SPLITS": 4, "COMBINE": "fused", "HEADS_PER_PROGRAM": 32}')
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["status"] == "ok"
    assert json.loads(record["params_json"])["COMBINE"] == "fused"
    assert len(record["verify"]) == 3 and len(record["workloads"]) == 4


def test_eval_with_code_runs_a_rewritten_region_and_its_wrong_math_is_incorrect(tmp_path):
    # an LLM's rewrite that forgets to rescale the running sums when the maximum rises: it
    # compiles and runs, and only the check against the reference can tell
    from engine.template import load_template
    own = load_template(REPO / "templates" / "sparse_mla.triton.j2").regions["tile_update"]
    wrong = own.replace("acc * alpha[:, None])", "acc)")
    assert wrong.count("acc)") == 2
    code = tmp_path / "code.json"
    code.write_text(json.dumps({"tile_update": wrong}))
    done = engine("eval", "templates/sparse_mla.triton.j2", "--device", "cpu", "--code", str(code))
    assert done.returncode == 1, done.stderr
    record = json.loads(done.stdout)
    assert record["status"] == "incorrect" and record["stage"] == "verify", record["error"]
    assert json.loads(record["code_json"]) == {"tile_update": wrong}


def test_a_sweep_of_a_slice_stays_in_it_across_resume(tmp_path):
    # The slice is the CLI's and the loop's business, not the kernel's: the small fixture template
    # (its 8 genomes evaluate in seconds under the interpreter) stands in for the real one here.
    out = tmp_path / "sweep"
    small = "tests/fixtures/templates/sparse_mla_small.triton.j2"
    first = engine("evolve", small, "--strategy", "exhaustive", "--budget", "1",
                   "--fix", "BLOCK_H=32", "--fix", "NUM_WARPS=8", "--device", "cpu", "--out", str(out), "--seed", "1")
    assert first.returncode == 0, first.stderr
    assert json.loads((out / "run.json").read_text())["fixed"] == {"BLOCK_H": 32, "NUM_WARPS": 8}
    resumed = engine("evolve", small, "--strategy", "exhaustive", "--budget", "2",
                     "--device", "cpu", "--out", str(out), "--seed", "1", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    genomes = [json.loads(r["params_json"]) for r in read_records(out) if r["kind"] == "genome"]
    assert len(genomes) == 2 and len({json.dumps(g, sort_keys=True) for g in genomes}) == 2
    assert all(g["BLOCK_H"] == 32 and g["NUM_WARPS"] == 8 for g in genomes)


def test_a_run_resumed_with_another_strategy_says_so_and_its_rows_record_it(tmp_path):
    out = tmp_path / "run"
    small = "tests/fixtures/templates/sparse_mla_small.triton.j2"
    first = engine("evolve", small, "--strategy", "random", "--budget", "1", "--device", "cpu", "--out", str(out))
    assert first.returncode == 0, first.stderr
    same = engine("evolve", small, "--strategy", "random", "--budget", "1", "--device", "cpu", "--out", str(out),
                  "--resume")
    assert same.returncode == 0 and "resumed with" not in same.stderr, same.stderr
    other = engine("evolve", small, "--strategy", "exhaustive", "--seed", "3", "--budget", "2", "--device", "cpu",
                   "--out", str(out), "--resume")
    assert other.returncode == 0, other.stderr
    assert "resumed with --strategy exhaustive --seed 3; the run began with random, seed 0" in other.stderr
    # a resume that names no strategy goes on with the last session's search, not the default tpe
    again = engine("evolve", small, "--budget", "3", "--device", "cpu", "--out", str(out), "--resume")
    assert again.returncode == 0, again.stderr
    assert "resumed with --strategy exhaustive --seed 3; the run began with random, seed 0" in again.stderr
    strategies = [r["strategy"] for r in read_records(out) if r["kind"] == "genome"]
    assert strategies == ["random", "exhaustive", "exhaustive"]
    config = json.loads((out / "run.json").read_text())
    assert config["strategy"] == "random" and config["search"] == {"strategy": "exhaustive", "seed": 3, "llm": {}}
    # a damaged note is named, and the run is left as it was
    rows = read_records(out)
    for field, value, said in [("strategy", "annealing", "search.strategy 'annealing' is no strategy of this engine"),
                               ("seed", -1, "search.seed -1 is not a seed")]:
        (out / "run.json").write_text(json.dumps(config | {"search": config["search"] | {field: value}}))
        refused = run_cli("evolve", small, "--budget", "4", "--device", "cpu", "--out", str(out), "--resume")
        assert refused.returncode == 2 and refused.stderr == f"engine: error: {out / 'run.json'}: {said}; name one with --{field}\n"
    assert read_records(out) == rows


def test_a_run_out_of_time_keeps_its_baselines_and_resume_continues_it(tmp_path):
    out = tmp_path / "run"
    small = "tests/fixtures/templates/sparse_mla_small.triton.j2"
    # a limit that has passed before the first genome of the search could be asked for
    first = engine("evolve", small, "--budget", "4", "--time-limit", "0.001s", "--device", "cpu",
                   "--out", str(out), "--seed", "2")
    assert first.returncode == 0, first.stderr
    assert "stopping: the time limit passed after 1 of 4 genome attempts; --resume continues the run" in first.stderr
    assert [(r["kind"], r["operator"]) for r in read_records(out)] == [("reference", "reference"), ("genome", "default")]
    resumed = engine("evolve", small, "--budget", "4", "--device", "cpu", "--out", str(out), "--seed", "2",
                     "--resume")
    assert resumed.returncode == 0, resumed.stderr
    genomes = [r for r in read_records(out) if r["kind"] == "genome"]
    assert len(genomes) == 4 and len({r["genome_id"] for r in genomes}) == 4


def test_a_resume_keeps_the_runs_objectives_budget_and_optuna_storage(tmp_path):
    """A resume after --time-limit, or any resume, names only --out and --resume: the run goes on
    to the budget it last ran to, over its own objectives, in its own Optuna study. Another
    --objectives would make its study's trials unreadable to the sampler: refused, in one line."""
    out, study = tmp_path / "run", tmp_path / "elsewhere" / "study.journal"
    small = "tests/fixtures/templates/sparse_mla_small.triton.j2"
    first = engine("evolve", small, "--objectives", "score,small_batch", "--budget", "1", "--storage", str(study),
                   "--device", "cpu", "--out", str(out))
    assert first.returncode == 0, first.stderr
    noted = json.loads((out / "run.json").read_text())
    assert (noted["objectives"], noted["budget"], noted["storage"]) == (["score", "small_batch"], 1, str(study))
    rows = len(read_records(out))

    other = engine("evolve", small, "--objectives", "score", "--device", "cpu", "--out", str(out), "--resume")
    assert other.returncode == 2 and "the run minimises score,small_batch" in other.stderr, other.stderr
    assert len(read_records(out)) == rows

    again = engine("evolve", small, "--device", "cpu", "--out", str(out), "--resume")
    assert again.returncode == 0, again.stderr
    assert "--budget 1 counts them all" in again.stderr  # the run's budget, not the default 150
    assert not (out / "optuna.journal").exists() and study.stat().st_size > 0  # its own study, not a new one
    assert json.loads((out / "pareto.json").read_text())["objectives"] == ["score", "small_batch"]
    assert len(read_records(out)) == rows


def test_a_run_with_a_storage_resumes_with_another_strategy_and_a_refused_session_leaves_the_notes(tmp_path):
    out, journal = tmp_path / "run", tmp_path / "study.journal"
    small = "tests/fixtures/templates/sparse_mla_small.triton.j2"
    first = engine("evolve", small, "--budget", "1", "--device", "cpu", "--out", str(out), "--storage", str(journal))
    assert first.returncode == 0, first.stderr
    noted = json.loads((out / "run.json").read_text())
    # refused once its worker is asked for a GPU this machine lacks: no row, and the notes stay the first session's
    refused = engine("evolve", small, "--budget", "3", "--device", "cuda", "--out", str(out), "--resume",
                     "--strategy", "random", "--seed", "9")
    assert refused.returncode == 2, refused.stderr
    assert json.loads((out / "run.json").read_text()) == noted
    # the storage the run noted is not this random session's to refuse; it stays noted for a later tpe one
    other = engine("evolve", small, "--budget", "2", "--device", "cpu", "--out", str(out), "--resume",
                   "--strategy", "random")
    assert other.returncode == 0, other.stderr
    assert [r["strategy"] for r in read_records(out) if r["kind"] == "genome"] == ["tpe", "random"]
    assert json.loads((out / "run.json").read_text())["storage"] == str(journal.resolve())
