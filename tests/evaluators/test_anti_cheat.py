"""Every cheat or fault of the fixture kernel is rejected, each for its own reason.

tests/fixtures/templates/sparse_mla_faulty.triton.j2 holds one honest kernel and one deliberate
cheat or defect per FAULT value; the table below is the contract: the exact status, and the
stage or guard that must report it. Each runs through the real worker under the interpreter.
"""

from __future__ import annotations

import pytest

from evaluators.runner import GpuUnhealthy, WorkerRunner
from evaluators.status import Status

CASES = [
    # fault, status, stage, words in the error, guards switched off to reach a deeper guard
    ("half_heads", "incorrect", "verify", "NaN (unwritten", {}),
    ("skip_rope", "incorrect", "verify", "out of tolerance", {}),
    ("stale_scale", "incorrect", "verify", "out of tolerance", {}),
    ("constant_output", "incorrect", "verify", "out of tolerance", {}),
    ("shape_gate", "incorrect", "verify", "b4_ctx4k", {}),
    ("skip_repeat", "rejected_nondeterministic", "determinism", "differs between two calls", {}),
    ("stop_after_verify", "incorrect", "bench", "NaN (unwritten", {}),  # bench: the timed calls
    ("input_mutation", "rejected_input_mutation", "input_mutation", "wrote to its inputs", {}),
    ("nondeterministic", "rejected_nondeterministic", "determinism", "differs between two calls", {}),
    ("late_write", "rejected_static", "static", "imports threading", {}),
    ("late_write", "rejected_deferred_write", "deferred_write", "changed after the call", {"static": False}),
    ("raw_memory", "rejected_static", "static", "imports ctypes", {}),
    ("side_stream", "rejected_static", "static", "creates a CUDA stream", {}),
    ("gc_walk", "rejected_static", "static", "imports gc", {}),
    ("torch_compute", "rejected_static", "static", "torch.einsum", {}),
    ("torch_compute", "rejected_torch_compute", "torch_compute", "aten.", {"static": False}),
    ("hidden_torch", "rejected_static", "static", "uses the module torch.nn.functional as a value", {}),
    ("hidden_torch", "rejected_torch_compute", "torch_compute", "computed with PyTorch", {"static": False}),
    ("timer_patch", "rejected_static", "static", "assigns to torch.cuda.Event", {}),
    ("bench_mutation", "rejected_input_mutation", "input_mutation", "the timed calls wrote to its inputs", {}),
    ("forged_fingerprint", "rejected_static", "static", ".tolist copies a tensor into Python lists", {}),
    ("forged_fingerprint", "rejected_input_mutation", "input_mutation", "the call wrote to its inputs",
     {"static": False}),
    ("patch_checker", "rejected_static", "static", "reads the interpreter's module table", {}),
    ("patch_checker", "rejected_harness_tamper", "harness_state", "evaluators.sparse_mla.compare (put back)",
     {"static": False}),
    ("reference_path", "rejected_static", "static", "reads the interpreter's module table", {}),
    ("reference_path", "rejected_torch_compute", "torch_compute", "computed with PyTorch", {"static": False}),
    ("numpy_host", "rejected_static", "static", ".numpy copies a tensor into numpy", {}),
    ("forged_reply", "rejected_static", "static", "reaches module os", {}),
    ("forged_reply", "rejected_forged_reply", "compile", "without this request's nonce", {"static": False}),
    ("code_swap", "rejected_static", "static", "imports evaluators.sparse_mla", {}),
    ("code_swap", "rejected_harness_tamper", "harness_state", "evaluators.sparse_mla.compare (put back)",
     {"static": False}),
    ("python_host", "rejected_torch_compute", "torch_compute", "read more than 64 times", {}),
    ("tensor_patch", "rejected_static", "static", "assigns to type(q).any", {}),
    ("tensor_patch", "rejected_harness_tamper", "harness_state", "torch.Tensor.any (added)", {"static": False}),
    ("instance_patch", "rejected_static", "static", "imports sys", {}),
    ("instance_patch", "rejected_harness_tamper", "harness_state", "request:the problem.check (added)",
     {"static": False}),
]


@pytest.fixture(scope="module")
def runner(module_worker):
    return module_worker("cpu")


def request(faulty_request, fault, guards=None):
    return faulty_request(fault, guards=guards or {}, bench=fault in ("none", "stop_after_verify", "bench_mutation"))


def test_the_honest_fixture_passes_every_guard(runner, faulty_request):
    result = runner.evaluate(request(faulty_request, "none"))
    assert result["status"] == "ok", result["error"]


@pytest.mark.parametrize("fault, status, stage, words, guards", CASES,
                         ids=[f"{c[0]}{'-deep' if c[4] else ''}" for c in CASES])
def test_each_cheat_is_rejected_for_its_own_reason(runner, faulty_request, fault, status, stage, words, guards):
    result = runner.evaluate(request(faulty_request, fault, guards))
    assert (result["status"], result["stage"]) == (status, stage), result["error"]
    assert words in result["error"]


def test_at_least_twelve_distinct_patterns_are_covered():
    assert len({c[0] for c in CASES} | {"crash", "hang", "slow_compile"}) >= 12
    gpu_only = {"rejected_not_capturable", "rejected_below_roofline", "rejected_hidden_work",  # tests/gpu
                "rejected_e2e_slowdown"}
    assert {c[1] for c in CASES} >= {s.value for s in Status if s.value.startswith("rejected_")} - gpu_only


def test_a_crash_restarts_the_worker_and_a_canary_checks_it_before_the_next_candidate(tmp_path, faulty_request):
    canary = faulty_request("none")
    r = WorkerRunner(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=60, canary=canary)
    try:
        crashed = r.evaluate(faulty_request("crash"))
        assert crashed["status"] == "worker_crash" and "SIGSEGV" in crashed["error"]
        assert r.evaluate(faulty_request("none"))["status"] == "ok"
        assert r.restarts == 1
        assert "Fatal Python error" in (tmp_path / "w.log").read_text()  # faulthandler's stack
    finally:
        r.stop()


def test_a_failing_canary_stops_the_run_instead_of_blaming_candidates(tmp_path, faulty_request):
    broken_canary = faulty_request("crash")
    r = WorkerRunner(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=60, canary=broken_canary)
    try:
        assert r.evaluate(faulty_request("crash"))["status"] == "worker_crash"
        with pytest.raises(GpuUnhealthy, match="canary"):
            r.evaluate(faulty_request("none"))
    finally:
        r.stop()


def test_a_hang_is_killed_typed_by_the_stage_it_struck_and_the_run_goes_on(tmp_path, faulty_request):
    r = WorkerRunner(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=5)
    try:
        slow = r.evaluate(faulty_request("slow_compile"))
        assert slow["status"] == "compile_timeout"  # the first call, where JIT compilation runs
        assert slow["stage"] == "compile" and "worker killed" in slow["error"] and "5 s" in slow["error"]
        hung = r.evaluate(faulty_request("hang"))  # compiles, then hangs while verified
        assert (hung["status"], hung["stage"]) == ("timeout", "verify")
        # the run goes on: the next genome, on the restarted worker, gets a limit that a loaded
        # 2-core machine meets (5 s, with the new worker's imports and JIT, once did not)
        r.timeout_s = 120
        assert r.evaluate(faulty_request("none"))["status"] == "ok"
        assert r.restarts == 2
    finally:
        r.stop()
