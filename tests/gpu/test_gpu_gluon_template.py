"""GPU tier: the Gluon template end to end through a real worker (Triton compiles the Gluon
kernels, the harness verifies them on fresh inputs under CUDA-graph replay and times them),
for both kernels: one warpgroup per value half, and the warp-specialized producer/consumers."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.template import load_template

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = load_template(REPO / "templates" / "sparse_mla.gluon.j2")
SPACE = TEMPLATE.load_space()


@pytest.fixture(scope="module")
def runner(module_worker):
    return module_worker("cuda", timeout_s=300)


@pytest.mark.gpu
@pytest.mark.parametrize("genes", [
    {},
    {"TOPK_TILE": 32, "STAGES": 3, "OVERLAP": True, "NUM_SPLITS": 4, "COMBINE": "fused"},
    {"WARP_SPECIALIZE": True, "CONSUMER_REGS": 224},
    {"WARP_SPECIALIZE": True, "TOPK_TILE": 32, "STAGES": 4, "NUM_SPLITS": 2},
    {"WARP_SPECIALIZE": True, "WS_SCORES": "halves", "CONSUMER_REGS": 224, "GATHER_CHUNK": 32},
    {"WARP_SPECIALIZE": True, "WS_SCORES": "halves", "OVERLAP": True, "TOPK_TILE": 32, "STAGES": 3,
     "NUM_SPLITS": 8},
    {"WARP_SPECIALIZE": True, "WS_SCORES": "halves", "NUM_SPLITS": 16, "COMBINE": "fused", "GATHER_CHUNK": 64},
], ids=["value-halves", "value-halves-overlap-4splits-fused", "ws-each", "ws-each-32rows-2splits", "ws-halves",
        "ws-halves-overlap-32rows-8splits", "ws-halves-16splits-fused"])
def test_gluon_genomes_verify_and_time_under_graph_replay(runner, genes):
    params = {**SPACE.default_params(), **genes}
    assert SPACE.is_valid(params), SPACE.violations(params)
    result = runner.evaluate(TEMPLATE.request(TEMPLATE.render(params), params))
    assert result["status"] == "ok", result["error"]
    assert len(result["workloads"]) == 12 and all(w["median_us"] > 0 for w in result["workloads"])
