"""Load a rendered Triton module and return its entry point.

Runs inside the worker. Under the interpreter (no GPU) Triton 3.6 multiplies bf16 tiles as
their raw uint16 bit patterns (``InterpreterBuilder.create_dot`` hands numpy the storage
type); ``patch_interpreter_bf16_dot`` makes it multiply the values, in float32 as a tensor core
accumulates. Without it every bf16 ``tl.dot`` is garbage on the CPU.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Callable

import numpy as np


class CompileError(Exception):
    """The rendered source failed to import or to compile."""


def load_entry(source: str, entry: str, workdir: Path) -> Callable:
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    path = workdir / f"kernel_{digest}.py"
    if not path.exists():
        workdir.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")  # workers sharing the folder never collide
        tmp.write_text(source)
        tmp.replace(path)
    name = f"kg_kernel_{digest}"
    if name in sys.modules:
        module = sys.modules[name]
    else:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)  # type: ignore[union-attr]
        except Exception as exc:
            raise CompileError(f"{type(exc).__name__}: {exc}") from exc
        sys.modules[name] = module
    fn = getattr(module, entry, None)
    if not callable(fn):
        raise CompileError(f"the rendered module defines no callable {entry!r}")
    return fn


def is_compile_failure(exc: BaseException) -> bool:
    """Errors raised by Triton's front end, lowering or resource checks (not by running)."""
    mod = type(exc).__module__ or ""
    names = {c.__name__ for c in type(exc).__mro__}
    return (mod.startswith("triton.compiler") or "CompilationError" in names
            or "OutOfResources" in names or "PTXASError" in names)


def patch_interpreter_bf16_dot() -> None:
    from triton.runtime import interpreter
    import triton.language as tl

    builder = interpreter.InterpreterBuilder
    if getattr(builder.create_dot, "_kg_bf16", False):
        return
    original = builder.create_dot

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        if a.dtype.scalar == tl.bfloat16 or b.dtype.scalar == tl.bfloat16:
            a_f = _as_float32(a.data, a.dtype.scalar == tl.bfloat16)
            b_f = _as_float32(b.data, b.dtype.scalar == tl.bfloat16)
            out = np.matmul(a_f, b_f).astype(d.data.dtype) + d.data
            return interpreter.TensorHandle(out, d.dtype.scalar)
        return original(self, a, b, d, input_precision, max_num_imprecise_acc)

    create_dot._kg_bf16 = True  # type: ignore[attr-defined]
    builder.create_dot = create_dot


def _as_float32(data: np.ndarray, is_bf16: bool) -> np.ndarray:
    if is_bf16:
        return (data.astype(np.uint32) << 16).view(np.float32)
    return data.astype(np.float32)


def compile_without_launching() -> None:
    """Make every Triton kernel call compile (into the on-disk cache) and return without
    launching. Used by the compile-ahead workers, which share a GPU with timed candidates and
    must put no work on it."""
    import inspect

    from triton.runtime.jit import JITFunction

    if getattr(JITFunction.run, "_kg_compile_only", False):
        return
    if "warmup" not in inspect.signature(JITFunction.run).parameters:
        raise RuntimeError("this Triton's JITFunction.run has no warmup argument; "
                           "compile-ahead cannot be made launch-free")
    original = JITFunction.run

    def run(self, *args, grid, warmup, **kwargs):
        return original(self, *args, grid=grid, warmup=True, **kwargs)

    run._kg_compile_only = True  # type: ignore[attr-defined]
    JITFunction.run = run
