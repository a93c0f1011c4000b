"""GPU tier: the guards that only a GPU can exercise (graph capture, the roofline floor), and a
device fault. Both cheats below pass every CPU-tier guard; only these stop them."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.faults import FAULTS

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def runner(module_worker):
    return module_worker("cuda", timeout_s=300)


@pytest.mark.gpu
@pytest.mark.parametrize("fault, status, stage, guards", [
    ("none", "ok", None, {}),
    ("host_sync", "rejected_not_capturable", "graph_capture", {}),
    # the graph is replayed on new values in the memory it was captured on: a copy of the answer
    # to the inputs it saw is the wrong answer
    ("cached_copy", "incorrect", "bench", {}),
    ("bench_mutation", "rejected_input_mutation", "input_mutation", {}),
    ("stop_after_verify", "incorrect", "bench", {}),
    # the floor guard, for what may yet get past the checks: an honest kernel held under a floor
    # set a thousand times the physical one
    ("none", "rejected_below_roofline", "roofline_floor", {"floor_scale": 1000.0}),
])
def test_gpu_only_guards(runner, faulty_request, fault, status, stage, guards):
    result = runner.evaluate(faulty_request(fault, device_kind="cuda", bench=True, guards=guards))
    assert (result["status"], result["stage"]) == (status, stage), result["error"]


@pytest.mark.gpu
def test_an_illegal_address_restarts_the_worker_and_the_next_candidate_runs(runner, faulty_request):
    crashed = runner.evaluate(faulty_request("crash"))
    assert crashed["status"] in ("illegal_address", "worker_crash"), crashed
    assert runner.evaluate(faulty_request("none", bench=True))["status"] == "ok"


@pytest.mark.gpu
@pytest.mark.parametrize("fault", [f for f in FAULTS if "cpu" not in f.devices], ids=lambda f: f.name)
def test_faults_only_a_gpu_can_raise_get_their_status_and_the_worker_goes_on(runner, faulty_request, fault):
    """The catalogue's GPU-only faults, injected into the honest Triton template as a drill
    would inject them."""
    from engine.template import load_template

    template = load_template(REPO / "templates" / "sparse_mla.triton.j2")
    source = fault.apply(template.render(template.load_space().default_params()), template.entry)
    result = runner.evaluate(template.request(source, seed=5, bench=False))
    assert result["status"] in fault.expected, (result["status"], result["error"])
    assert runner.evaluate(faulty_request("none"))["status"] == "ok"
