"""The e2e stage (evaluators/harness.py, evaluators/decode_layer.py): the kernel inside the model's
decode layer, in a real worker under the Triton interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from engine.store.reader import read_records
from evaluators.decode_layer import INTERPRETER, MODEL, DecodeLayer, weight_bytes

REPO = Path(__file__).resolve().parents[2]
SMALL = "tests/fixtures/templates/sparse_mla_small.triton.j2"


@pytest.fixture(scope="module")
def runner(module_worker):
    return module_worker("cpu", timeout_s=300)


def test_an_honest_kernel_is_checked_inside_the_layer_on_the_query_the_layer_made(runner, faulty_request):
    result = runner.evaluate(faulty_request("none", bench=True, e2e=True))
    assert result["status"] == "ok", result["error"]
    (entry,) = result["e2e"]
    assert entry["name"] == "b1_ctx1k" and entry["heads"] == 64
    assert entry["out_rel_l2"] < 1e-2 and entry["lse_rel_l2"] < 1e-4
    assert entry["alone_us"] == next(w["median_us"] for w in result["workloads"] if w["name"] == "b1_ctx1k")
    assert entry["step_us"] > 0 and entry["rest_us"] is None  # no layer-alone figure off a GPU
    assert result["e2e_s"] > 0


def test_a_kernel_that_works_only_for_the_checked_calls_fails_inside_the_layer(runner, faulty_request):
    result = runner.evaluate(faulty_request("stop_after_verify", bench=False, e2e=True))
    assert (result["status"], result["stage"]) == ("incorrect", "e2e"), result["error"]
    assert "b1_ctx1k inside the decode layer: out:" in result["error"] and "NaN (unwritten" in result["error"]


def test_the_layer_a_worker_keeps_for_every_genome_holds_no_output_of_the_one_before(module_worker, faulty_request):
    # the worker makes the decode layer (and the attention outputs it holds) once for all genomes:
    # an honest genome fills them, and the next, which writes only for its checked calls, must
    # not pass on what the honest one left there; the honest one still passes after it. (A worker
    # of its own: the partial kernel counts its calls for the life of the process.)
    runner = module_worker("cpu", timeout_s=300)
    honest, partial = faulty_request("none", bench=True, e2e=True), faulty_request("stop_after_verify", e2e=True)
    first, second, third = runner.evaluate(honest), runner.evaluate(partial), runner.evaluate(honest)
    assert first["status"] == "ok" and third["status"] == "ok", (first["error"], third["error"])
    assert (second["status"], second["stage"]) == ("incorrect", "e2e"), second["error"]
    assert first["e2e"][0]["out_rel_l2"] == third["e2e"][0]["out_rel_l2"]  # same seed, same layer: same step


def test_without_e2e_asked_the_stage_does_not_run(runner, faulty_request):
    result = runner.evaluate(faulty_request("none", bench=False))
    assert result["status"] == "ok" and result["e2e"] == [] and result["e2e_s"] is None


def test_the_layer_feeds_the_attention_the_absorbed_query_and_adds_its_projection_to_the_input():
    gen = torch.Generator().manual_seed(3)
    layer = DecodeLayer(INTERPRETER, heads=8, batch=2, device=torch.device("cpu"), gen=gen)
    x = torch.randn(2, INTERPRETER.hidden, generator=gen).to(torch.bfloat16)
    seen = []
    layer.out.zero_()
    y = layer.step(x, lambda q: seen.append(q.clone()))
    (q,) = seen
    assert q.shape == (2, 8, 576) and q.dtype == torch.bfloat16 and q.is_contiguous()
    assert torch.equal(q, layer.q) and torch.equal(y, x)  # zero attention output: the residual alone
    d = INTERPRETER
    q_a = torch.nn.functional.rms_norm(x.float() @ layer.w_qa.float(), (d.q_lora,))
    heads = (q_a @ layer.w_qb.float()).view(2, 8, d.nope + d.rope)
    want = torch.cat([torch.einsum("bhn,hnc->bhc", heads[..., :d.nope], layer.w_uk.float()), heads[..., d.nope:]], -1)
    assert float((q.float() - want).norm() / want.norm()) < 2e-2  # bf16 steps against float32
    assert (MODEL.hidden, MODEL.q_lora, MODEL.nope, MODEL.rope, MODEL.v_head) == (7168, 1536, 128, 64, 128)
    assert round(weight_bytes(MODEL, 128) / 1e6) == 366  # what the docs say a GPU step streams
    sizes = [layer.w_qa, layer.w_qb, layer.w_uk, layer.w_uv, layer.w_o]
    assert sum(w.numel() * w.element_size() for w in sizes) == weight_bytes(INTERPRETER, 8)


def test_evolve_with_e2e_records_the_layer_rows_and_keeps_the_setting_on_resume(tmp_path):
    def engine(*args):
        return subprocess.run([sys.executable, "-m", "engine", *args], cwd=REPO, capture_output=True, text=True,
                              timeout=900)

    out = tmp_path / "run"
    first = engine("evolve", SMALL, "--budget", "1", "--e2e", "--objectives", "score,e2e", "--device", "cpu",
                   "--out", str(out))
    assert first.returncode == 0, first.stderr
    (point,) = json.loads((out / "pareto.json").read_text())["front"]  # the default: 1.0 on both, its own baseline
    assert point["objectives"] == {"score": 1.0, "e2e": 1.0}
    assert json.loads((out / "run.json").read_text())["e2e"] is True
    records = read_records(out)
    assert all(r["e2e"] and r["e2e"][0]["name"] == "b1_ctx1k" for r in records)  # the reference path too
    assert "inside the decode layer" in first.stdout and "pytorch reference path" in first.stdout
    resumed = engine("evolve", SMALL, "--budget", "2", "--objectives", "score,e2e", "--device", "cpu", "--out", str(out),
                     "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert all(r["e2e"] for r in read_records(out))
    no = engine("evolve", SMALL, "--budget", "2", "--no-e2e", "--device", "cpu", "--out", str(out), "--resume")
    assert no.returncode == 2 and "--resume without --e2e, but the run was made with it" in no.stderr
    # under the interpreter the layer is off unless asked for (on a GPU it is on: tests/gpu/test_gpu_e2e.py)
    other = engine("evolve", SMALL, "--budget", "1", "--device", "cpu", "--out", str(tmp_path / "plain"))
    assert other.returncode == 0
    assert json.loads((tmp_path / "plain" / "run.json").read_text())["e2e"] is False
    assert not any(r["e2e"] for r in read_records(tmp_path / "plain"))
    refused = engine("evolve", SMALL, "--budget", "2", "--e2e", "--device", "cpu", "--out", str(tmp_path / "plain"),
                     "--resume")
    assert refused.returncode == 2 and "--resume with --e2e, but the run was made without it" in refused.stderr
