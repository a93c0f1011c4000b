"""GPU tier: the e2e stage on a GPU: each template's default genome inside the DeepSeek-V3.2
decode layer at the model's sizes, in one CUDA graph a step, timed with and without the kernel."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.store.reader import read_records

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.gpu
@pytest.mark.parametrize("template", ["templates/sparse_mla.triton.j2", "templates/sparse_mla.cu.j2"])
def test_the_default_genome_is_checked_and_timed_inside_the_decode_layer(template):
    done = subprocess.run([sys.executable, "-m", "engine", "eval", template, "--device", "cuda", "--e2e"],
                          cwd=REPO, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr + done.stdout
    record = json.loads(done.stdout)
    assert record["status"] == "ok", record["error"]
    assert [e["name"] for e in record["e2e"]] == ["b1_ctx32k", "b8_ctx32k", "b64_ctx32k"]
    for e in record["e2e"]:
        print(template, json.dumps(e))  # the call's log keeps the figures for docs/BENCHMARKS.md
        # the layer's weights (366 MB) stream through the L2 every step: tens of microseconds at least
        assert e["rest_us"] > 20 and e["step_us"] > e["rest_us"] - 2 * e["step_iqr_us"]
        assert e["alone_us"] > 0 and e["out_rel_l2"] < 1e-2


@pytest.fixture(scope="module")
def runner(module_worker):
    """One worker for the module's tests: each worker keeps its problem's KV pool (about 20 GB for
    B=128 at 128K), so three of them and the evolve test's own left an 80 GB H100 out of memory."""
    return module_worker("cuda", timeout_s=600)


@pytest.mark.gpu
def test_a_kernel_that_works_only_for_the_checked_calls_fails_inside_the_layer_on_a_gpu(runner, faulty_request):
    result = runner.evaluate(faulty_request("stop_after_verify", device_kind="cuda", bench=False, e2e=True))
    assert (result["status"], result["stage"]) == ("incorrect", "e2e"), result["error"]


@pytest.mark.gpu
@pytest.mark.parametrize("fault, status, stage", [("none", "ok", None),
                                                  ("slow_in_layer", "rejected_e2e_slowdown", "e2e")])
def test_a_kernel_fast_only_in_the_benchmark_is_rejected_inside_the_layer_on_a_gpu(runner, faulty_request,
                                                                                   fault, status, stage):
    """The fixture's slow_in_layer launches its kernel 16 times a call in the layer's graph and once
    in the benchmark's: correct everywhere, so only the e2e guard (attention inside the layer more
    than twice its time alone, twice) can stop it; the honest fixture beside it passes the guard."""
    result = runner.evaluate(faulty_request(fault, device_kind="cuda", bench=True, e2e=True))
    assert (result["status"], result["stage"]) == (status, stage), result["error"]
    if fault == "none":  # the guard passed it (status ok): its figures for docs/BENCHMARKS.md
        assert [e["name"] for e in result["e2e"]] == ["b1_ctx32k", "b8_ctx32k", "b64_ctx32k"]
        for e in result["e2e"]:
            print(fault, json.dumps(e))
    else:  # rejected by the guard's own comparison, after timing the layer again
        assert "inside the decode layer" in result["error"] and "alone, twice" in result["error"], result["error"]


@pytest.mark.gpu
def test_on_a_gpu_evolve_runs_each_genome_inside_the_decode_layer_unless_told_not_to(tmp_path):
    """The default: genomes timed on a GPU are also timed and checked inside the layer (what a
    model gets: alone, a kernel can win what the layer takes back); --no-e2e leaves it out."""
    def evolve(*args):
        return subprocess.run([sys.executable, "-m", "engine", "evolve", "templates/sparse_mla.triton.j2",
                               "--budget", "1", "--device", "cuda", *args], cwd=REPO, capture_output=True, text=True,
                              timeout=900)

    on, off = tmp_path / "on", tmp_path / "off"
    done = evolve("--out", str(on))
    assert done.returncode == 0, done.stderr
    assert json.loads((on / "run.json").read_text())["e2e"] is True and "--no-e2e leaves it out" in done.stderr
    records = read_records(on)
    assert records and all(r["e2e"] for r in records if r["status"] == "ok")
    done = evolve("--no-e2e", "--out", str(off))
    assert done.returncode == 0, done.stderr
    assert json.loads((off / "run.json").read_text())["e2e"] is False
    assert not any(r["e2e"] for r in read_records(off))
