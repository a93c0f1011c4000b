"""The worker's own contract: the honest fixture passes every stage, source that does not
import is a compile error, and what a candidate prints cannot corrupt the reply channel.
(Each cheat and fault of the fixture, crashes and hangs included: test_anti_cheat.py.)"""

from __future__ import annotations

import pytest

from evaluators.runner import WorkerRunner


@pytest.fixture()
def runner(tmp_path):
    r = WorkerRunner(tmp_path / "kernels", tmp_path / "worker.log", device="cpu", timeout_s=20)
    yield r
    r.stop()


def test_the_honest_fixture_is_verified_on_every_shape_including_the_largest_and_timed(runner, faulty_request):
    result = runner.evaluate(faulty_request("none", bench=True))
    assert result["status"] == "ok", result["error"]
    # b4_ctx4k is the largest CPU workload: it is always among the verified shapes
    assert [v["shape"] for v in result["verify"]] == ["short_ctx_invalid", "b4_ctx4k", "sparse_invalid"]
    assert len(result["workloads"]) == 4 and all(w["median_us"] > 0 for w in result["workloads"])


def test_source_that_does_not_import_is_a_compile_error(runner, faulty_request):
    req = faulty_request("none")
    req["source"] = req["source"].replace("import triton\n", "import triton\ndef broken(:\n")
    result = runner.evaluate(req)
    assert result["status"] == "compile_error"
    assert "SyntaxError" in result["error"]


@pytest.mark.parametrize("fields, words", [
    ({"problem": "nope"}, "problem 'nope' is not a known problem"),
    ({"problem_args": {"kvformat": "bf16"}}, "problem_args names ['kvformat']"),
    ({"problem_args": {"kv_format": "int4"}}, "kv_format 'int4' is not one of"),
])
def test_a_request_for_a_problem_the_worker_cannot_make_is_an_invalid_genome(runner, faulty_request, fields, words):
    # the same maker as the CLI's check of a template's front matter (evaluators/problems.py)
    result = runner.evaluate(faulty_request("none", **fields))
    assert (result["status"], result["stage"]) == ("invalid_genome", "problem")
    assert words in result["error"]


def test_a_kernel_print_cannot_corrupt_the_reply_channel(runner, faulty_request):
    req = faulty_request("none")
    req["source"] = req["source"].replace('    fault = "none"\n', '    fault = "none"\n    print("{not json")\n')
    assert 'print("{not json")' in req["source"]
    assert runner.evaluate(req)["status"] == "ok"
