"""GPU tier: launcher isolation (evaluators/isolated_launcher.py) on a GPU. The Triton and Gluon
templates' launchers run in a process that sees no GPU, on fake CUDA tensors, and their traces are
replayed under graph capture here: each genome must pass every stage isolated, and be timed within
a few percent of the same genome with its launcher in the worker, in the same worker and run. The
cheats that only a GPU tells apart get what isolation makes of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.template import load_template

REPO = Path(__file__).resolve().parents[2]
TRITON = load_template(REPO / "templates" / "sparse_mla.triton.j2")
GLUON = load_template(REPO / "templates" / "sparse_mla.gluon.j2")


@pytest.fixture(scope="module")
def runner(module_worker):
    return module_worker("cuda", timeout_s=300)


@pytest.mark.gpu
@pytest.mark.parametrize("template, genes", [
    (TRITON, {"NUM_SPLITS": "auto", "COMBINE": "fused"}),
    (GLUON, {"WARP_SPECIALIZE": True, "NUM_SPLITS": 16, "COMBINE": "fused"}),
], ids=["triton-auto-fused", "gluon-ws-16splits-fused"])
def test_a_genome_isolated_passes_and_times_as_it_does_in_the_worker(runner, template, genes):
    space = template.load_space()
    params = {**space.default_params(), **genes}
    assert space.is_valid(params), space.violations(params)
    source = template.render(params)
    # four evaluations, alternated so that the clocks' drift falls on both; the second of each is kept
    results = {iso: runner.evaluate(template.request(source, params, e2e=True, guards={"isolate_launcher": iso}))
               for iso in (False, True, False, True)}
    for iso, result in results.items():
        assert result["status"] == "ok", (iso, result["error"])
    alone, isolated = results[False]["workloads"], results[True]["workloads"]
    assert [w["name"] for w in alone] == [w["name"] for w in isolated]
    for a, b in zip(alone, isolated):
        assert b["median_us"] < a["median_us"] * 1.05 + 1.0, (a["name"], a["median_us"], b["median_us"])


@pytest.mark.gpu
@pytest.mark.parametrize("fault, status, stage", [
    ("none", "ok", None),
    ("host_sync", "runtime_error", "compile"),  # a host read: an isolated launcher sees shapes only
    ("stop_after_verify", "ok", None),          # one trace a signature: every call launches
    ("slow_in_layer", "ok", None),              # it cannot tell the layer's capture from the bench's
    ("cached_copy", "runtime_error", "verify"),  # its cache is a module-level tensor in its own process
])
def test_gpu_cheats_isolated(runner, faulty_request, fault, status, stage):
    result = runner.evaluate(faulty_request(fault, device_kind="cuda", bench=True, e2e=fault == "slow_in_layer",
                                            guards={"isolate_launcher": True}))
    assert (result["status"], result["stage"]) == (status, stage), result["error"]
