"""Load an exported kernel as the function the run timed (shipped by `python -m engine export`):

    import sys; sys.path.insert(0, EXPORT_FOLDER)
    from dispatch import select
    from launcher import load
    kernel = select(batch, context, heads, topk, kv_format="bf16", device=torch.cuda.get_device_name())
    attend = load(kernel)                         # once per kernel; None from select: keep your own path
    attend(q, kv_cache, indices, sm_scale, out, lse)

or, the selection made for each call and each kernel loaded once:

    from launcher import dispatcher
    attend = dispatcher(my_attention, kv_format="bf16")   # my_attention: where select names none
    attend(q, kv_cache, indices, sm_scale, out, lse, context=context)

``kv_format=`` (and any other problem argument) only where the export's problem has it, as a
CUDA export of the sparse MLA template does; a Triton export's select and dispatcher take none.

q is [B, H, 576] bf16; kv_cache [blocks, 64, 576] bf16 (or [blocks, 64, 656] uint8 rows of the
FP8-656 format); indices [B, topk] int32, rows of the flattened cache (block * 64 + slot), -1 for
none; sm_scale the softmax scale. out [B, H, 512] bf16 and lse [B, H] fp32 (natural log; +inf for
a token with no valid row) are filled.

A CUDA kernel (``kernels/ID.cu``) runs from the cubin beside it through the launcher the run
timed it with (``sparse_mla_cuda.py`` and ``cuda_launch.py`` in this folder), on torch's current
stream, so that a CUDA graph captures it; it needs torch and cuda-python on a Hopper (sm_90) GPU.
A Triton kernel (``kernels/ID.py``) is its module's entry point; it needs torch and Triton.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Callable

FOLDER = Path(__file__).resolve().parent.parent  # the export folder: dispatch.json, kernels/


def load(kernel: str | Path, device=None) -> Callable:
    """The callable of ``kernel``, a path as ``select`` gives it (relative to the export folder)
    or an absolute one; ``device``: the CUDA device a CUDA kernel is loaded on (default: torch's
    current one)."""
    path = Path(kernel)
    path = path if path.is_absolute() else FOLDER / path
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such kernel in this export (select() names one under kernels/)")
    if path.suffix == ".cu":
        return _cuda(path, device)
    if path.suffix == ".py":
        return _triton(path)
    raise ValueError(f"{path}: neither a CUDA (.cu) nor a Triton (.py) kernel")


def dispatcher(fallback: Callable | None = None, device=None, gpu_name: str | None = None, **problem) -> Callable:
    """``f(q, kv_cache, indices, sm_scale, out, lse, *, context)``: each call by the kernel
    ``select`` names for its shape (batch, heads and top-k from the tensors; ``context``, the
    longest sequence's length, from the caller), each kernel loaded once a GPU; by ``fallback``
    (the caller's own path) where ``select`` names none, as on a GPU other than the run's.
    ``device``: the GPU every call runs on (default: each call's own, ``q``'s, so that one
    dispatcher serves a process driving several GPUs). ``gpu_name``: the GPU's name as torch
    gives it (default: that GPU's, none without a GPU). ``problem``: the problem's arguments
    (``kv_format="fp8_656"``, ...). Without a GPU a CUDA kernel cannot run: the call goes to
    ``fallback`` (a Triton kernel runs under TRITON_INTERPRET)."""
    import torch

    select = _dispatch_module().select
    gpu = torch.cuda.is_available()
    loaded: dict[str, dict[str, Callable]] = {}
    names: dict[str, str | None] = {}

    def attend(q, kv_cache, indices, sm_scale, out, lse, *, context: int) -> None:
        batch, heads, _ = q.shape
        where = torch.device(device) if device is not None else q.device
        if str(where) not in names:
            names[str(where)] = gpu_name or (torch.cuda.get_device_name(where) if gpu and where.type == "cuda"
                                             else None)
        name = names[str(where)]
        kernel = select(batch, context, heads, indices.shape[1], device=name, **problem)
        if kernel is not None and not gpu and kernel.endswith(".cu"):
            kernel = None
        if kernel is None:
            if fallback is None:
                raise LookupError(f"no exported kernel for batch {batch}, context {context}, heads {heads}, "
                                  f"top-k {indices.shape[1]} on {name or 'this device'}, and no fallback given")
            return fallback(q, kv_cache, indices, sm_scale, out, lse)
        on = loaded.setdefault(kernel, {})
        if str(where) not in on:  # a CUDA kernel's module is loaded on one GPU and launches there
            on[str(where)] = load(kernel, where if where.type == "cuda" else None)
        on[str(where)](q, kv_cache, indices, sm_scale, out, lse)

    attend.loaded = loaded  # kernel path -> {device: its function there}: what the calls so far have used
    return attend


def _dispatch_module():
    spec = importlib.util.spec_from_file_location("exported_dispatch", FOLDER / "dispatch.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _cuda(path: Path, device) -> Callable:
    import torch

    cubin = path.with_suffix(".cubin")
    if not cubin.is_file():
        raise FileNotFoundError(f"{cubin}: not built; build it from {path.name} as README.md says")
    if not torch.cuda.is_available():
        raise RuntimeError(f"{path.name}: a CUDA kernel runs only on a CUDA GPU, and torch sees none here")
    try:
        from .cuda_launch import CubinModule
    except ImportError as exc:
        raise RuntimeError(f"{path.name}: loading a cubin needs cuda-python (pip install cuda-python): {exc}") from exc
    from .sparse_mla_cuda import make_entry, parse_contract

    where = torch.device("cuda", torch.cuda.current_device()) if device is None else torch.device(device)
    return make_entry(parse_contract(path.read_text()), CubinModule(cubin, where))


def _triton(path: Path) -> Callable:
    entry = json.loads((FOLDER / "dispatch.json").read_text())["entry"]
    spec = importlib.util.spec_from_file_location(f"exported_kernel_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return getattr(module, entry)
