"""GPU tier: the CUDA fire drill's faults (engine/faults_cuda.py), injected as `evolve
--inject-faults` injects them into the genomes the headline search runs, each get their expected
status, and the worker (restarted where the fault killed it) then passes an honest genome."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.faults_cuda import CUDA_FAULTS
from engine.template import load_template

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = load_template(REPO / "templates" / "sparse_mla.cu.j2")
SPACE = TEMPLATE.load_space()
BARS = json.loads((REPO / "docs" / "diagnostics" / "session63-20261206" / "variants_bars.json").read_text())
GENOMES = {"default": {}, "small-batch-bf16": BARS["pair i8 (bf16)"]["genes"]}


@pytest.fixture(scope="module")
def runner(module_worker):
    return module_worker("cuda", timeout_s=60)  # the hang waits for it


@pytest.mark.gpu
@pytest.mark.parametrize("genome", sorted(GENOMES))
@pytest.mark.parametrize("fault", CUDA_FAULTS, ids=lambda f: f.name)
def test_each_cuda_fault_gets_its_expected_status_and_the_worker_goes_on(runner, fault, genome):
    params = {**SPACE.default_params(), **GENOMES[genome]}
    source = fault.apply(TEMPLATE.render(params), TEMPLATE.entry)
    result = runner.evaluate(TEMPLATE.request(source, params, seed=11, bench=False))
    assert result["status"] in fault.expected, (result["status"], result["stage"], result["error"])
    honest = runner.evaluate(TEMPLATE.request(TEMPLATE.render(params), params, seed=12, bench=False))
    assert honest["status"] == "ok", honest["error"]
