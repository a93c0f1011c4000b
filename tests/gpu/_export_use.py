"""What the GPU tier's export tests share: a model's use of an export folder of the CUDA template
(`launcher.load(select(...))` at B=8 for each cache format, in a CUDA graph, then `launcher.dispatcher`
on the same call, each checked against the float64 reference; on a card other than the run's, the
dispatcher first hands the call to the caller's path, then is told the card counts as the run's), run in a process that sees nothing of this repository but the check."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

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
    # the dispatcher's own selection and load on the call's GPU, outside a graph: the same answer
    from dispatch import ENVIRONMENT
    from launcher import dispatcher
    used = []
    call = dispatcher(lambda *args: used.append(args), kv_format=kv_format)
    call(inp.q, inp.kv_cache, inp.indices, inp.sm_scale, out, lse, context=4096)
    if torch.cuda.get_device_name(device) != ENVIRONMENT["gpu"]:
        # a card other than the run's: the caller's own path, nothing loaded
        assert len(used) == 1 and call.loaded == {}, (used, call.loaded)
        call = dispatcher(kv_format=kv_format, gpu_name=ENVIRONMENT["gpu"])  # told this card counts as the run's
    problem.poison((out, lse))
    call(inp.q, inp.kv_cache, inp.indices, inp.sm_scale, out, lse, context=4096)
    torch.cuda.synchronize()
    assert problem.check(inp, (out, lse))[0] is None and sorted(call.loaded) == [kernel], call.loaded
    assert list(call.loaded[kernel]) == [str(inp.q.device)], call.loaded  # loaded on that GPU, once
# the check's modules import neither of these: had the launcher reached into the repository added
# above for the check, they would be loaded
assert not {"evaluators.cuda_launch", "evaluators.sparse_mla_cuda"} & set(sys.modules), sorted(sys.modules)
"""


def _without_repo() -> dict[str, str]:
    """This process's environment (the GPU's libraries, the card it was given) less PYTHONPATH:
    nothing of this repository is importable until the check adds it."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def use_export(folder: Path) -> subprocess.CompletedProcess:
    """USE run from ``folder`` with only the folder importable."""
    return subprocess.run([sys.executable, "-c", USE, str(REPO)], cwd=folder, capture_output=True, text=True,
                          timeout=600, env={**_without_repo(), "PYTHONPATH": str(folder)})
