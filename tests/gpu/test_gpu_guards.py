"""GPU tier: the guards that only a GPU can exercise (graph capture, the roofline floor), and a
device fault. Both cheats below pass every CPU-tier guard; only these stop them."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.template import load_template
from evaluators.runner import WorkerRunner

FAULTY = Path(__file__).resolve().parents[1] / "fixtures" / "templates" / "sparse_mla_faulty.triton.j2"


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("gpu_guards")
    r = WorkerRunner(tmp / "kernels", tmp / "worker.log", device="cuda", timeout_s=300)
    yield r
    r.stop()


def request(fault: str) -> dict:
    template = load_template(FAULTY)
    return {"problem": template.problem, "language": "triton", "entry": template.entry,
            "source": template.render({"FAULT": fault}), "seed": 5}


@pytest.mark.gpu
@pytest.mark.parametrize("fault, status, stage", [
    ("none", "ok", None),
    ("host_sync", "rejected_not_capturable", "graph_capture"),
    ("cached_copy", "rejected_below_roofline", "roofline_floor"),
    ("stop_after_verify", "incorrect", "bench"),
])
def test_gpu_only_guards(runner, fault, status, stage):
    result = runner.evaluate(request(fault))
    assert (result["status"], result["stage"]) == (status, stage), result["error"]


@pytest.mark.gpu
def test_an_illegal_address_restarts_the_worker_and_the_next_candidate_runs(runner):
    crashed = runner.evaluate(request("crash"))
    assert crashed["status"] in ("illegal_address", "worker_crash"), crashed
    assert runner.evaluate(request("none"))["status"] == "ok"
