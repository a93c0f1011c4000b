"""The isolated worker: wrong kernels are rejected by verification; crashes and hangs cost only
the worker, which is restarted for the next candidate."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.template import load_template
from evaluators.runner import WorkerRunner

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "templates"


@pytest.fixture(scope="module")
def faulty():
    return load_template(FIXTURES / "sparse_mla_faulty.triton.j2")


@pytest.fixture()
def runner(tmp_path):
    r = WorkerRunner(tmp_path / "kernels", tmp_path / "worker.log", device="cpu", timeout_s=20)
    yield r
    r.stop()


def request(template, params, seed=7, bench=False):
    return {"problem": template.problem, "language": template.language, "entry": template.entry,
            "source": template.render(params), "seed": seed, "bench": bench}


def test_honest_fixture_passes_so_the_faults_below_are_the_only_difference(runner, faulty):
    result = runner.evaluate(request(faulty, {"FAULT": "none"}, bench=True))
    assert result["status"] == "ok", result["error"]
    assert [v["shape"] for v in result["verify"]] == ["short_ctx_invalid", "b4_ctx4k", "sparse_invalid"]
    assert len(result["workloads"]) == 4 and all(w["median_us"] > 0 for w in result["workloads"])


def test_the_largest_workload_is_always_verified(runner, faulty):
    result = runner.evaluate(request(faulty, {"FAULT": "none"}))
    assert "b4_ctx4k" in [v["shape"] for v in result["verify"]]  # the largest CPU workload


def test_worker_recovers_from_a_kernel_that_crashes(runner, faulty):
    crashed = runner.evaluate(request(faulty, {"FAULT": "crash"}))
    assert crashed["status"] == "worker_crash"
    assert "SIGSEGV" in crashed["error"]
    after = runner.evaluate(request(faulty, {"FAULT": "none"}))
    assert after["status"] == "ok"
    assert runner.restarts == 1


def test_worker_recovers_from_a_kernel_that_hangs(tmp_path, faulty):
    runner = WorkerRunner(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=5)
    try:
        hung = runner.evaluate(request(faulty, {"FAULT": "hang"}))
        assert hung["status"] == "timeout"
        assert "5 s" in hung["error"]
        after = runner.evaluate(request(faulty, {"FAULT": "none"}))
        assert after["status"] == "ok"
        assert runner.restarts == 1
    finally:
        runner.stop()


def test_source_that_does_not_import_is_a_compile_error(runner, faulty):
    req = request(faulty, {"FAULT": "none"})
    req["source"] = req["source"].replace("import triton\n", "import triton\ndef broken(:\n")
    result = runner.evaluate(req)
    assert result["status"] == "compile_error"
    assert "SyntaxError" in result["error"]


def test_a_kernel_print_cannot_corrupt_the_reply_channel(runner, faulty):
    req = request(faulty, {"FAULT": "none"})
    req["source"] = req["source"].replace("def sparse_mla_decode(", 'print("{not json")\n\ndef sparse_mla_decode(')
    assert runner.evaluate(req)["status"] == "ok"


def test_a_kernel_that_stops_working_once_timed_is_caught_by_the_check_of_the_timed_calls(runner, faulty):
    result = runner.evaluate(request(faulty, {"FAULT": "stop_after_verify"}, bench=True))
    assert result["status"] == "incorrect"
    assert result["stage"] == "bench"
    assert "output of the timed calls" in result["error"] and "NaN" in result["error"]
