"""GPU tier: an export of a recorded H200 run of the CUDA template, used as a model would use
it: `launcher.load(select(...))` from the export folder, on fresh inputs of the run's shapes, in
a CUDA graph, checked against the float64 reference, for each cache format."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RUN = REPO / "docs" / "runs" / "h200-cuda17-20261205"  # a default genome of each format, winners of each

USE = r"""
import sys
import torch
from dispatch import select
from launcher import load

sys.path.append(sys.argv[1])
from evaluators.problem import Workload
from evaluators.sparse_mla import SparseMlaDecode

device = torch.device("cuda")
for kv_format in ("bf16", "fp8_656"):
    kernel = select(8, 4096, 128, 2048, kv_format=kv_format)  # no device=: any Hopper card runs it
    attend = load(kernel)
    problem = SparseMlaDecode(kv_format)
    w = Workload("b8", 8, 128, 2048, 4096, invalid_fraction=0.1, empty_rows=1)
    inp = problem.make_inputs(w, torch.Generator(device).manual_seed(11), problem.new_pool(device, [w]))
    out, lse = problem.poisoned_outputs(w, device)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):  # warmed on the capture stream first, as a model's graph does
        attend(inp.q, inp.kv_cache, inp.indices, inp.sm_scale, out, lse)
    stream.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        attend(inp.q, inp.kv_cache, inp.indices, inp.sm_scale, out, lse)
    problem.poison((out, lse))
    graph.replay()
    torch.cuda.synchronize()
    print(kv_format, kernel, problem.check(inp, (out, lse))[0])
# the check's modules import neither of these: had the launcher reached into the repository added
# above for the check, they would be loaded
assert not {"evaluators.cuda_launch", "evaluators.sparse_mla_cuda"} & set(sys.modules), sorted(sys.modules)
"""


def _without_repo() -> dict[str, str]:
    """This process's environment (the GPU's libraries, the card it was given) less PYTHONPATH:
    nothing of this repository is importable until the check adds it."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


@pytest.mark.gpu
def test_an_exported_cuda_kernel_runs_from_the_export_folder_in_a_cuda_graph(tmp_path):
    from engine.export import export

    folder = tmp_path / "export"
    table = export(RUN, folder, io.StringIO())
    assert table["cubins"]["built"], table["cubins"]
    done = subprocess.run([sys.executable, "-c", USE, str(REPO)], cwd=folder, capture_output=True, text=True,
                          timeout=600, env={**_without_repo(), "PYTHONPATH": str(folder)})
    assert done.returncode == 0, done.stderr[-3000:]
    results = [line.split(" ", 2) for line in done.stdout.splitlines()]
    assert [r[0] for r in results] == ["bf16", "fp8_656"]
    assert all(r[1].startswith("kernels/") and r[2] == "None" for r in results), done.stdout
