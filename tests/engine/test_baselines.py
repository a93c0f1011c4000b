"""Which times a genome is scored against: its own problem's default, then the space defaults'
problem's, then its own problem's PyTorch path, then the main problem's. Rows as the loop writes
them, on the two-format fixture."""

from __future__ import annotations

import json
from pathlib import Path

from engine.baselines import NO_BASELINE, Baselines
from engine.template import load_template

FORMATS = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "templates" / "sparse_mla_formats.triton.j2"


def _row(kv_format: str | None, us: float, *, kind="genome", operator="default", status="ok") -> dict:
    params = {"KV_FORMAT": kv_format} if kind == "reference" else {"KV_FORMAT": kv_format, "BLOCK_K": 128}
    return {"kind": kind, "operator": operator, "status": status, "genome_id": f"{kind}-{kv_format}-{us}",
            "params_json": json.dumps(params) if kv_format else None,
            "workloads": [{"name": "b1", "median_us": us}, {"name": "b64", "median_us": 10 * us}],
            "e2e": [{"name": "b1_layer", "step_us": 3 * us}]}


def _baselines() -> Baselines:
    template = load_template(FORMATS)
    return Baselines.for_space_defaults(template, template.load_space().default_params())


FP8 = {"KV_FORMAT": "fp8_656", "BLOCK_K": 64}
BF16 = {**FP8, "KV_FORMAT": "bf16"}


def test_a_genome_is_scored_against_its_own_formats_default_once_that_is_ok():
    b = _baselines()
    assert b.add(_row("bf16", 2.0)) and b.of(FP8).name == "default genome genome-bf16-2.0"  # stands in meanwhile
    assert not b.add(_row("fp8_656", 3.0, status="compile_error"))
    assert b.of(FP8).name == "default genome genome-bf16-2.0"
    assert b.add(_row("fp8_656", 5.0))
    assert b.of(FP8).times == {"b1": 5.0, "b64": 50.0, "e2e:b1_layer": 15.0}
    assert b.of(BF16).name == "default genome genome-bf16-2.0"


def test_without_an_ok_default_each_problems_own_pytorch_path_stands_in():
    b = _baselines()
    assert b.of(FP8) is NO_BASELINE and b.of(None).times == {}
    assert not b.add(_row("bf16", 2.0, operator="mutation"))  # only a default genome is a baseline
    assert not b.add(_row("bf16", 2.0, kind="injected"))      # nor a fire drill's copy of one
    assert b.add(_row("bf16", 9.0, kind="reference"))
    assert b.of(FP8).name == "pytorch reference path (KV_FORMAT=bf16)"  # the main problem's, as the last resort
    assert b.add(_row("fp8_656", 11.0, kind="reference"))
    assert b.of(FP8).name == "pytorch reference path (KV_FORMAT=fp8_656)" and b.of(FP8).times["b64"] == 110.0
    assert b.of(BF16).times["b64"] == 90.0 and b.of(None).times["b1"] == 9.0
    assert b.add(_row("bf16", 2.0))  # a kernel's default outranks any PyTorch path, of either problem
    assert b.of(FP8).name == b.of(BF16).name == "default genome genome-bf16-2.0"


def test_an_older_runs_reference_row_without_a_problem_solved_the_problems_own_defaults():
    b = _baselines()
    assert b.add(_row(None, 9.0, kind="reference"))
    assert b.references.keys() == {b.main_problem} == {'{"kv_format": "bf16"}'}
    assert b.of(FP8).name == "pytorch reference path"
    # a run of the FP8 slice alone (--fix KV_FORMAT=fp8_656): that older row solved bf16, not the
    # run's main problem, and no FP8 genome is scored against it
    template = load_template(FORMATS)
    fp8_slice = Baselines.for_space_defaults(template, {**template.load_space().default_params(), **FP8})
    assert fp8_slice.add(_row(None, 9.0, kind="reference"))
    assert fp8_slice.references.keys() == {'{"kv_format": "bf16"}'} != {fp8_slice.main_problem}
    assert fp8_slice.of(FP8) is NO_BASELINE
