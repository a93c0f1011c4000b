"""The LLM operator (engine/strategies/llm.py, engine/llm/): a real HTTP endpoint on 127.0.0.1,
the real openai client, the real transcript files; the genomes are scored by a formula here (the
whole loop with a worker is in test_evolve_with_an_llm.py)."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest

from engine.errors import UserError
from engine.genome import Genome
from engine.llm.brief import build_brief
from engine.llm.client import ChatClient, Endpoint
from engine.llm.transcript import Transcript, read_calls
from engine.strategies import make_strategy
from engine.strategies.base import Told
from engine.strategies.llm import LlmStrategy
from engine.template import load_template
from tests.llm_endpoint import ChatEndpoint, genomes_answer

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = load_template(REPO / "tests" / "fixtures" / "templates" / "sparse_mla_small.triton.j2")
SPACE = TEMPLATE.load_space()
DEFAULT = SPACE.default_params()


def score(params) -> float:
    return params["BLOCK_H"] / 64 + params["BLOCK_K"] / 128 + params["NUM_WARPS"] / 8


def told(params, operator: str) -> Told:
    genome = Genome.make(SPACE, params, TEMPLATE.content_hash)
    value = score(params)
    return Told(genome.genome_id, params, value,
                detail={"status": "ok", "operator": operator, "error": None,
                        "times_us": {"b1_ctx4k": 100 * value}, "registers": None, "spill_bytes": None})


def strategy(tmp_path, endpoint: ChatEndpoint, *, batch=2, calls=None, patience=None, device="NVIDIA H200",
             key_env="KG_TEST_LLM_KEY", **fields) -> LlmStrategy:
    chat = ChatClient(Endpoint("test-model", endpoint.base_url, key_env, max_retries=0, timeout_s=20, **fields))
    return LlmStrategy(SPACE, 7, chat=chat, brief=build_brief(TEMPLATE, device), partner=make_strategy("random", SPACE, 3),
                       transcript=Transcript(tmp_path / "llm"), batch=batch, calls=calls, patience=patience,
                       progress=io.StringIO())


def evaluate(s: LlmStrategy, rounds: int, seen: dict | None = None) -> list:
    """The loop's protocol: ask(1), tell the earlier result of a repeat, else score and tell."""
    seen = {} if seen is None else seen
    asked = []
    for _ in range(rounds):
        (proposal,) = s.ask(1)
        asked.append(proposal)
        key = json.dumps(proposal.params, sort_keys=True)
        if key not in seen:
            seen[key] = told(proposal.params, proposal.operator)
        s.tell([seen[key]])
    return asked


def test_the_llm_proposes_genomes_and_the_transcript_keeps_exactly_what_it_was_sent(tmp_path, monkeypatch):
    monkeypatch.setenv("KG_TEST_LLM_KEY", "sk-secret-do-not-record")
    answers = iter([genomes_answer({"BLOCK_H": 32}, {"NUM_WARPS": "8", "BLOCK_K": 64})])
    with ChatEndpoint(lambda body: next(answers)) as endpoint:
        s = strategy(tmp_path, endpoint)
        s.tell([told(DEFAULT, "default")])
        asked = evaluate(s, 2)
    assert [p.operator for p in asked] == ["llm:1", "llm:1"]
    assert asked[0].params == {**DEFAULT, "BLOCK_H": 32}
    assert asked[1].params == {**DEFAULT, "NUM_WARPS": 8, "BLOCK_K": 64}  # "8" read as the gene's 8
    (call,) = read_calls(tmp_path / "llm")
    assert call["messages"] == endpoint.requests[0]["messages"]
    assert endpoint.headers[0]["authorization"] == "Bearer sk-secret-do-not-record"
    assert "sk-secret" not in "".join(p.read_text() for p in (tmp_path / "llm").rglob("*") if p.is_file())
    assert call["endpoint"]["api_key_set"] and call["endpoint"]["model"] == "test-model"
    system, brief, situation = (m["content"] for m in call["messages"])
    assert "NVIDIA H200" in brief and "DeepSeek-V3.2" in brief  # the hardware and model sheets
    assert TEMPLATE.text in brief and "[genes.BLOCK_H]" in brief
    assert {b["path"].rsplit("/", 1)[-1] for b in call["brief"]} >= {"h200.md", "deepseek_v32.md", "small.toml"}
    assert "Propose 2 new genomes" in situation and "b1_ctx4k=" in situation
    assert [p["params"] for p in call["proposed"]] == [{"BLOCK_H": 32}, {"BLOCK_K": 64, "NUM_WARPS": 8}]
    # the brief is kept once by its hash, not in each line
    assert len(list((tmp_path / "llm" / "text").iterdir())) == 1


def test_without_a_sheet_for_the_gpu_the_llm_is_told_so(tmp_path):
    with ChatEndpoint(lambda body: genomes_answer({"BLOCK_H": 32})) as endpoint:
        s = strategy(tmp_path, endpoint, device="none (Triton interpreter on CPU)")
        evaluate(s, 1)
    brief = endpoint.requests[0]["messages"][1]["content"]
    assert "no hardware sheet" in brief and "NVIDIA H200" not in brief


def test_an_unreadable_answer_hands_the_next_asks_to_the_partner_and_is_named_in_the_next_call(tmp_path):
    answers = iter([genomes_answer({"BLOCK_H": 32}), "I think you should use bigger blocks.",
                    # two genomes: the partner's pick may have been one of them
                    genomes_answer({"NUM_WARPS": 8, "BLOCK_H": 32}, {"NUM_WARPS": 8, "BLOCK_K": 64})])
    with ChatEndpoint(lambda body: next(answers)) as endpoint:
        s = strategy(tmp_path, endpoint, batch=1)
        asked = evaluate(s, 3)
    assert [p.operator for p in asked] == ["llm:1", "random", "llm:3"]
    calls = read_calls(tmp_path / "llm")
    assert "no JSON object in the answer" in calls[1]["unreadable"]
    assert "could not be read" in calls[2]["messages"][2]["content"]


def test_repeats_are_left_out_and_named_in_the_next_call(tmp_path):
    answers = iter([genomes_answer({"BLOCK_H": 32}), genomes_answer({"BLOCK_H": 32}, {"BLOCK_K": 64}),
                    genomes_answer({"NUM_WARPS": 8})])
    with ChatEndpoint(lambda body: next(answers)) as endpoint:
        s = strategy(tmp_path, endpoint, batch=1)
        asked = evaluate(s, 3)
    assert [p.params for p in asked] == [{**DEFAULT, "BLOCK_H": 32}, {**DEFAULT, "BLOCK_K": 64},
                                         {**DEFAULT, "NUM_WARPS": 8}]
    calls = read_calls(tmp_path / "llm")
    assert [p["repeat"] for p in calls[1]["proposed"]] == [True, False]
    assert '1 of the 2 genomes of your call 2 had been evaluated' in calls[2]["messages"][2]["content"]
    assert "## Your genomes of call 2" in calls[2]["messages"][2]["content"]


def test_a_failure_at_the_first_call_stops_the_run_with_the_reason(tmp_path):
    with ChatEndpoint(lambda body: (401, "invalid api key")) as endpoint:
        s = strategy(tmp_path, endpoint, key_env="KG_TEST_NO_SUCH_VARIABLE")
        with pytest.raises(UserError, match="authentication refused.*KG_TEST_NO_SUCH_VARIABLE"):
            s.ask(1)
    with ChatEndpoint(lambda body: (404, "model 'test-model' does not exist")) as endpoint:
        with pytest.raises(UserError, match="404 for model 'test-model': model 'test-model' does not exist"):
            strategy(tmp_path / "b", endpoint).ask(1)
    unreachable = ChatEndpoint(lambda body: "")
    unreachable.server.server_close()  # nothing listens on its port any more
    with pytest.raises(UserError, match="cannot connect"):
        strategy(tmp_path / "c", unreachable).ask(1)
    assert read_calls(tmp_path / "c" / "llm")[0]["error"].startswith("LLM endpoint http://127.0.0.1:")


def test_a_later_server_error_lets_the_partner_propose_and_the_llm_is_asked_again(tmp_path):
    answers = iter([genomes_answer({"BLOCK_H": 32}), (500, "overloaded"),
                    genomes_answer({"NUM_WARPS": 8}, {"BLOCK_K": 64})])  # the partner's pick may be one
    with ChatEndpoint(lambda body: next(answers)) as endpoint:
        s = strategy(tmp_path, endpoint, batch=1)
        asked = evaluate(s, 3)
    assert [p.operator for p in asked] == ["llm:1", "random", "llm:3"]
    assert "HTTP 500: overloaded" in read_calls(tmp_path / "llm")[1]["error"]


def test_an_answer_with_one_item_that_is_no_genome_keeps_the_others_and_tells_the_model(tmp_path):
    answers = iter(['{"genomes": [{"params": {"BLOCK_H": 32}}, {"params": "BLOCK_K=64"}, {"params": {"NUM_WARPS": 8}}]}',
                    genomes_answer({"BLOCK_K": 64})])
    with ChatEndpoint(lambda body: next(answers)) as endpoint:
        asked = evaluate(strategy(tmp_path, endpoint, batch=1), 3)
    assert [p.operator for p in asked] == ["llm:1", "llm:1", "llm:2"]
    first, second = read_calls(tmp_path / "llm")
    assert first["skipped"] == ["genomes[1] has no params object"] and len(first["proposed"]) == 2
    assert "these items could not be read and were left out: genomes[1] has no params object" in (
        second["messages"][2]["content"])


def test_a_resumed_runs_first_call_failing_for_now_lets_the_partner_propose(tmp_path):
    """The endpoint answered this run before (its transcript says so): a 500 at the resumed
    session's first call is a passing fault, not a wrong URL, key or model that stops the run."""
    with ChatEndpoint(lambda body: genomes_answer({"BLOCK_H": 32})) as endpoint:
        evaluate(strategy(tmp_path, endpoint, batch=1), 1)
    answers = iter([(500, "overloaded"), genomes_answer({"NUM_WARPS": 8})])
    with ChatEndpoint(lambda body: next(answers)) as endpoint:
        resumed = strategy(tmp_path, endpoint, batch=1)  # the same transcript folder: a resume
        asked = evaluate(resumed, 2)
    assert [p.operator for p in asked] == ["random", "llm:3"]
    assert "HTTP 500: overloaded" in read_calls(tmp_path / "llm")[1]["error"]


def test_a_200_answer_that_is_no_chat_completion_is_a_failed_call_not_a_crash(tmp_path):
    # a proxy's error page, an object whose choice holds no message: the openai client takes
    # either without complaint
    answers = iter([genomes_answer({"BLOCK_H": 32}), b"<html>502 Bad Gateway</html>", b'{"choices": [{}]}',
                    b'{"choices": ["hi"], "usage": "many"}', b"[]",
                    genomes_answer({"NUM_WARPS": 8}, {"BLOCK_K": 64})])  # the partner's picks may be one
    with ChatEndpoint(lambda body: next(answers)) as endpoint:
        s = strategy(tmp_path, endpoint, batch=1)
        asked = evaluate(s, 6)
    assert [p.operator for p in asked] == ["llm:1", "random", "random", "random", "random", "llm:6"]
    errors = [c.get("error") for c in read_calls(tmp_path / "llm")]
    assert errors[2:5] == [f"LLM endpoint {endpoint.base_url}: not a chat completion: {why}" for why in (
        "choices[0] holds no message text: {}", 'choices[0] holds no message text: "hi"', "the answer holds no choices")]
    assert errors[1].endswith("the body is not JSON: '<html>502 Bad Gateway</html>'")


def test_an_answer_kept_alive_byte_by_byte_past_the_limit_is_a_timeout_and_is_not_retried(tmp_path):
    # httpx's timeout bounds each read; a proxy's keep-alive spaces would hold the call for good
    answers = iter([genomes_answer({"BLOCK_H": 32}), genomes_answer({"NUM_WARPS": 8}),
                    genomes_answer({"NUM_WARPS": 8}, {"BLOCK_K": 64})])
    with ChatEndpoint(lambda body: next(answers), keepalive_s=lambda request: 4.0 if request == 2 else 0.0) as endpoint:
        chat = ChatClient(Endpoint("test-model", endpoint.base_url, timeout_s=1, max_retries=2))
        s = LlmStrategy(SPACE, 7, chat=chat, brief=build_brief(TEMPLATE, "cpu"), partner=make_strategy("random", SPACE, 3),
                        transcript=Transcript(tmp_path / "llm"), batch=1, progress=io.StringIO())
        evaluate(s, 1)
        t0 = time.monotonic()
        asked = evaluate(s, 2)
        assert time.monotonic() - t0 < 3
    assert [p.operator for p in asked] == ["random", "llm:3"]
    assert read_calls(tmp_path / "llm")[1]["error"] == f"LLM endpoint {endpoint.base_url}: no answer within 1 s"
    assert len(endpoint.requests) == 3  # the abandoned call was not sent again


def test_after_its_calls_are_spent_only_the_partner_proposes_and_resume_counts_earlier_calls(tmp_path):
    with ChatEndpoint(lambda body: genomes_answer({"BLOCK_H": 32}, {"BLOCK_K": 64})) as endpoint:
        s = strategy(tmp_path, endpoint, batch=2, calls=1)
        asked = evaluate(s, 4)
        assert [p.operator for p in asked] == ["llm:1", "llm:1", "random", "random"]
        assert len(endpoint.requests) == 1
        again = strategy(tmp_path, endpoint, batch=2, calls=2)  # the run resumed with one more call
        again.tell([told(DEFAULT, "default")])
        more = evaluate(again, 1)
    assert len(endpoint.requests) == 2 and more[0].operator == "llm:2"
    assert [c["call"] for c in read_calls(tmp_path / "llm")] == [1, 2]


def test_request_fields_left_unset_are_not_sent_and_extra_ones_are(tmp_path):
    with ChatEndpoint(lambda body: genomes_answer({"BLOCK_H": 32})) as endpoint:
        evaluate(strategy(tmp_path / "a", endpoint), 1)
        evaluate(strategy(tmp_path / "b", endpoint, temperature=0.2, max_tokens=900,
                          extra={"reasoning_effort": "high"}), 1)
    plain, tuned = endpoint.requests
    assert "temperature" not in plain and "max_tokens" not in plain and plain["seed"] == 8
    assert (tuned["temperature"], tuned["max_tokens"], tuned["reasoning_effort"]) == (0.2, 900, "high")
    assert read_calls(tmp_path / "b" / "llm")[0]["endpoint"]["extra"] == {"reasoning_effort": "high"}


def test_an_answer_cut_at_the_token_limit_is_named_as_such_in_the_next_call(tmp_path):
    answers = iter([genomes_answer({"BLOCK_H": 32}), '{"genomes": [{"params": {"BLOCK_K": 6',
                    genomes_answer({"NUM_WARPS": 8}, {"BLOCK_K": 64})])
    with ChatEndpoint(lambda body: next(answers), finish_reason=lambda text: "stop" if text.endswith("\n") else "length") as endpoint:
        evaluate(strategy(tmp_path, endpoint, batch=1), 3)
    calls = read_calls(tmp_path / "llm")
    assert calls[1]["unreadable"].endswith("(the answer was cut at the token limit)")
    assert "It was cut at the token limit" in calls[2]["messages"][2]["content"]


def test_after_patience_calls_without_a_new_best_the_partner_alone_proposes(tmp_path):
    answers = iter([genomes_answer({"BLOCK_H": 32}),                      # 2.0: the run's new best
                    genomes_answer({"BLOCK_H": 32, "NUM_WARPS": 8})])    # 2.5: no better
    with ChatEndpoint(lambda body: next(answers)) as endpoint:
        s = strategy(tmp_path, endpoint, batch=1, patience=1)
        s.tell([told(DEFAULT, "default")])
        asked = evaluate(s, 4)
    assert [p.operator for p in asked] == ["llm:1", "llm:2", "random", "random"]
    assert len(endpoint.requests) == 2 and "no new best from the last 1 calls" in s.progress.getvalue()


def test_gene_values_that_mostly_fail_are_summed_up_for_the_model(tmp_path):
    s = strategy(tmp_path, ChatEndpoint(lambda body: ""))
    wide = {**DEFAULT, "NUM_WARPS": 8}
    failures = [Told(f"f{i}", {**wide, "BLOCK_H": h, "BLOCK_K": k}, None,
                     detail={"status": status, "operator": "random", "error": "x"})
                for i, (h, k, status) in enumerate([(32, 64, "compile_error"), (64, 64, "compile_error"),
                                                    (32, 128, "timeout")])]
    s.tell([told(DEFAULT, "default"), told({**wide, "BLOCK_H": 64, "BLOCK_K": 128}, "random")] + failures)
    text = s.situation(2)
    assert "- NUM_WARPS=8: 3 of 4 failed (compile_error 2, timeout 1)" in text
    layered = Told("L1", {**DEFAULT, "BLOCK_K": 64}, 0.9, detail={"status": "ok", "operator": "random",
                   "times_us": {"b1_ctx4k": 9.0}, "layer_us": {"b1_ctx32k": 131.5}})
    s.tell([layered])
    assert "- L1 score 0.9000 {\"BLOCK_K\":64}\n  times: b1_ctx4k=9.00us; decode layer: b1_ctx32k=131.5us" in s.situation(1)
    assert "BLOCK_H=32" not in text.split("## Gene values")[1].split("##")[0]  # 2 tried: too few to judge


def test_each_problems_default_is_shown_as_the_baseline_of_its_own_scores(tmp_path):
    s = strategy(tmp_path, ChatEndpoint(lambda body: ""))
    s.tell([told(DEFAULT, "default")])
    assert "The default genome (" in s.situation(1) and "are the baselines" not in s.situation(1)
    other = told({**DEFAULT, "NUM_WARPS": 8}, "default")  # a second problem's default, as the loop tells it
    s.tell([other])
    text = s.situation(1)
    assert "are the baselines; a genome is scored against the default of its own problem:" in text
    assert f"- {other.genome_id} {{\"NUM_WARPS\":8}}\n  times: b1_ctx4k=" in text


def test_the_best_genomes_are_shown_with_their_builds_registers_spills_and_code_size(tmp_path):
    s = strategy(tmp_path, ChatEndpoint(lambda body: ""))
    built, interpreted = told(DEFAULT, "default"), told({**DEFAULT, "NUM_WARPS": 8}, "random")
    built.detail.update(registers=168, spill_bytes=0, code_bytes=348928)  # a CUDA genome's build
    s.tell([built, interpreted])
    text = s.situation(1)
    assert f"- {built.genome_id} score" in text and "regs 168 spill 0 B code 341 KB\n" in text
    assert text.count(" regs ") == 1  # a genome without a build's figures shows none
