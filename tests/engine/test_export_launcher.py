"""An export runs without this repository: `launcher.load(select(...))` gives the function the
run timed. The Triton kernels of a recorded H200 run, exported and run from the export folder
under the interpreter against the float64 reference; a CUDA export ships the launcher its run
timed with, and says plainly what a machine without a GPU lacks."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from engine.export import export

REPO = Path(__file__).resolve().parents[2]
TRITON_RUN = REPO / "docs" / "runs" / "h200-triton-ga200-final-20261130"

# Run in the export folder with nothing of this repository importable, then (for the check
# alone) with it: the problem's inputs, the interpreter's bf16 fix and the reference.
USE = r"""
import sys
import torch
from dispatch import select
from launcher import load

kernels = {"winner": select(8, 4096, 128, 2048), "default": select(129, 4096, 128, 2048)}
fns = {name: load(k) for name, k in kernels.items()}
assert not [m for m in sys.modules if m.split(".")[0] in ("engine", "evaluators")], "the export imported the repo"
sys.path.append(sys.argv[1])
from evaluators.problem import Workload
from evaluators.sparse_mla import SparseMlaDecode
from evaluators.triton_backend import patch_interpreter_bf16_dot

patch_interpreter_bf16_dot()  # the interpreter's bf16 products, as the harness runs them
problem = SparseMlaDecode()
w = Workload("invalid_and_empty", 3, 64, 256, 1024, invalid_fraction=0.1, empty_rows=1)
inp = problem.make_inputs(w, torch.Generator().manual_seed(7), problem.new_pool(torch.device("cpu"), [w]))
for name, fn in fns.items():
    out, lse = problem.poisoned_outputs(w, torch.device("cpu"))
    fn(inp.q, inp.kv_cache, inp.indices, inp.sm_scale, out, lse)
    print(name, kernels[name], problem.check(inp, (out, lse))[0])
"""


def _python(folder: Path, code: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-c", code, *args], cwd=folder, capture_output=True, text=True,
                          timeout=600, env={**clean, "PYTHONPATH": str(folder), **env})


def test_an_exported_triton_kernel_runs_from_the_export_folder_alone(tmp_path):
    folder = tmp_path / "export"
    table = export(TRITON_RUN, folder, io.StringIO())
    assert sorted(p.name for p in (folder / "launcher").iterdir()) == ["__init__.py"]
    done = _python(folder, USE, str(REPO), TRITON_INTERPRET="1")
    assert done.returncode == 0, done.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    winner, default = lines["winner"].split(" ", 1), lines["default"].split(" ", 1)
    (group,) = table["groups"]
    assert default[0] == group["default"]["kernel"] and winner[0] != default[0]
    assert winner[1] == default[1] == "None"  # the check found nothing wrong with either


def test_the_launcher_names_a_kernel_the_export_lacks(tmp_path):
    folder = tmp_path / "export"
    export(TRITON_RUN, folder, io.StringIO())
    done = _python(folder, "from launcher import load; load('kernels/0000000000000000.py')")
    assert done.returncode == 1 and "0000000000000000.py: no such kernel in this export" in done.stderr


DISPATCHER = r"""
import sys
import torch
from launcher import dispatcher

sys.path.append(sys.argv[1])
from evaluators.problem import Workload
from evaluators.sparse_mla import SparseMlaDecode, torch_reference_path
from evaluators.triton_backend import patch_interpreter_bf16_dot

patch_interpreter_bf16_dot()
problem = SparseMlaDecode()
# the run's shape (128 heads, top-k 2048; a short context keeps the interpreter's call to seconds)
# and the interpreter's scale, which the run never measured
shapes = [Workload("run", 1, 128, 2048, 2048, invalid_fraction=0.1), Workload("small", 2, 64, 256, 1024, invalid_fraction=0.1)]
inputs = [problem.make_inputs(w, torch.Generator().manual_seed(3), problem.new_pool(torch.device("cpu"), [w]))
          for w in shapes]
mine = []

def my_path(*args):
    mine.append(args[0].shape[1])
    torch_reference_path(*args)

for gpu, calls in ((None, (0, 1, 1)), ("NVIDIA H100 80GB HBM3", (1,))):  # the run's GPU; another: the caller's path
    attend = dispatcher(my_path, gpu_name=gpu)
    for i in calls:
        w, inp = shapes[i], inputs[i]
        out, lse = problem.poisoned_outputs(w, torch.device("cpu"))
        attend(inp.q, inp.kv_cache, inp.indices, inp.sm_scale, out, lse, context=w.context)
        assert problem.check(inp, (out, lse))[0] is None
    print(gpu, sorted(attend.loaded), mine)
try:
    dispatcher(gpu_name="NVIDIA H100 80GB HBM3")(inp.q, inp.kv_cache, inp.indices, inp.sm_scale, out, lse, context=1)
except LookupError as exc:
    print("refused:", exc)
"""


def test_the_dispatcher_runs_each_call_by_its_kernel_or_the_callers_own_path(tmp_path):
    folder = tmp_path / "export"
    table = export(TRITON_RUN, folder, io.StringIO())
    done = _python(folder, DISPATCHER, str(REPO), TRITON_INTERPRET="1")
    assert done.returncode == 0, done.stderr[-3000:]
    run_gpu, other_gpu, refused = done.stdout.splitlines()
    (group,) = table["groups"]
    # the run's shape: its kernel there (B=1 at ctx 2K: the table's entry of b1_ctx4k); heads 64 and
    # top-k 256, which the run never measured: both calls by the caller's path
    b1 = next(e["kernel"] for e in group["entries"] if e["batch"] == [1, 1] and e["context"][0] == 1)
    assert run_gpu == f"None ['{b1}'] [64, 64]"
    assert other_gpu == "NVIDIA H100 80GB HBM3 [] [64, 64, 64]"
    assert refused.startswith("refused: no exported kernel for batch 2, context 1, heads 64") and "no fallback" in refused


CUDA_WITHOUT_GPU = r"""
import torch
from launcher import dispatcher

assert not torch.cuda.is_available()
mine = []
attend = dispatcher(lambda *args: mine.append(args[0].shape), kv_format="bf16")
q = torch.zeros(8, 128, 576, dtype=torch.bfloat16)
out, lse = torch.empty(8, 128, 512, dtype=torch.bfloat16), torch.empty(8, 128)
attend(q, torch.zeros(4, 64, 576, dtype=torch.bfloat16), torch.zeros(8, 2048, dtype=torch.int32), 0.1, out, lse,
       context=4096)
print(mine, sorted(attend.loaded))
"""


def test_without_a_gpu_the_dispatcher_gives_a_cuda_kernels_calls_to_the_callers_path(tmp_path, monkeypatch):
    """select names a CUDA kernel for the run's shape (on no named GPU it cannot tell), which no
    machine without a GPU can run: the caller's own path takes the call rather than an error."""
    monkeypatch.setenv("PATH", os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                                               if not (Path(p) / "nvcc").exists()))  # sources only: fast
    folder = tmp_path / "export"
    table = export(REPO / "docs" / "runs" / "h200-cuda18-20261206", folder, io.StringIO())
    assert not table["cubins"]["built"]
    done = _python(folder, CUDA_WITHOUT_GPU)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "[torch.Size([8, 128, 576])] []"
