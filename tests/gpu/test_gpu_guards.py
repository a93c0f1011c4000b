"""GPU tier: the guards that only a GPU can exercise (graph capture, the roofline floor), and a
device fault. Both cheats below pass every CPU-tier guard; only these stop them."""

from __future__ import annotations

import pytest



@pytest.fixture(scope="module")
def runner(module_worker):
    return module_worker("cuda", timeout_s=300)


@pytest.mark.gpu
@pytest.mark.parametrize("fault, status, stage", [
    ("none", "ok", None),
    ("host_sync", "rejected_not_capturable", "graph_capture"),
    ("cached_copy", "rejected_below_roofline", "roofline_floor"),
    ("stop_after_verify", "incorrect", "bench"),
])
def test_gpu_only_guards(runner, faulty_request, fault, status, stage):
    result = runner.evaluate(faulty_request(fault, bench=True))
    assert (result["status"], result["stage"]) == (status, stage), result["error"]


@pytest.mark.gpu
def test_an_illegal_address_restarts_the_worker_and_the_next_candidate_runs(runner, faulty_request):
    crashed = runner.evaluate(faulty_request("crash"))
    assert crashed["status"] in ("illegal_address", "worker_crash"), crashed
    assert runner.evaluate(faulty_request("none", bench=True))["status"] == "ok"
