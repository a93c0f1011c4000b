"""The runtime half of "the answer must come from the template's kernel language".

The static guard (``evaluators.guards``) refuses the PyTorch calls it can name in a Triton
module's host code, but names are easy to hide: a tensor method (``q.matmul(k)``), an alias
(``import torch as T``, ``F = torch.nn.functional``), ``torch.ops.aten.bmm.default``. Every one of
them still reaches PyTorch's dispatcher, so this guard watches the dispatcher instead: while the
candidate's entry runs, each ATen operator is attributed to the innermost Python frame outside
PyTorch. Operators that Triton's own machinery issues (its launcher; under ``TRITON_INTERPRET``
the interpreter copying tensors in and out) are Triton's. Every other operator is the
candidate's, and may only allocate, view, copy or fill memory: what a launcher needs for scratch
buffers, and nothing that computes an answer. Where it leaves that list the call is finished
(so that a ``try``/``except`` in the candidate cannot swallow the verdict) and then rejected.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import Any, Callable

import torch
import triton
from torch.utils._python_dispatch import TorchDispatchMode

from evaluators.rejection import Rejection
from evaluators.status import Status

# ATen operators a launcher may issue itself, by name without overload: memory, not arithmetic.
# Views and copies move or reinterpret bytes (no gather by indices: index, gather, index_select
# and take are arithmetic on addresses and stay out); fills write a constant.
LAUNCHER_OPS = frozenset({
    # allocation
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like",
    "new_zeros", "full", "full_like", "new_full", "ones", "ones_like", "new_ones", "scalar_tensor",
    "lift_fresh", "empty_permuted", "arange",  # arange: a fill with a ramp (offsets, a grid's ids)
    # views
    "view", "_unsafe_view", "view_as", "reshape", "as_strided", "alias", "detach", "t", "transpose",
    "permute", "expand", "unsqueeze", "squeeze", "select", "slice", "narrow", "split", "split_with_sizes",
    "unbind", "chunk", "flatten", "unflatten", "view_as_real", "view_as_complex", "_reshape_alias",
    # copies and fills
    "clone", "copy_", "_to_copy", "contiguous", "fill_", "zero_",
    # a device value read on the host (`.item()`): no answer, and under a CUDA graph's capture it
    # fails the capture, which the harness types as rejected_not_capturable
    "_local_scalar_dense",
})

_TORCH_DIR = os.path.dirname(os.path.realpath(torch.__file__)) + os.sep
# Frames of Triton's folder are Triton's, never the candidate's. The harness's own folder is not
# trusted: no harness code runs inside a candidate's call unless the candidate called it (its
# PyTorch reference path, say, which would then compute the answer for it).
_TRUSTED_DIRS = (os.path.dirname(os.path.realpath(triton.__file__)) + os.sep,)


@functools.cache
def _kind(co_filename: str) -> str:
    """"torch", "trusted" or "candidate", for a code object's file name ("<string>" and other
    made-up names are the candidate's: only a candidate has a reason to run code it made)."""
    path = os.path.realpath(co_filename)
    if path.startswith(_TORCH_DIR):
        return "torch"
    return "trusted" if path.startswith(_TRUSTED_DIRS) else "candidate"


def _origin(frame) -> tuple[str, int] | None:
    """File and line of the innermost frame outside PyTorch, or None when that frame is Triton's."""
    while frame is not None:
        kind = _kind(frame.f_code.co_filename)
        if kind != "torch":
            return None if kind == "trusted" else (frame.f_code.co_filename, frame.f_lineno)
        frame = frame.f_back
    return None


# A launcher may read a few device values on the host (a count, a flag); an answer computed in
# Python from the tensors' elements (``float(t)`` over every element) reads thousands.
MAX_SCALAR_READS = 64


class _Watch(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.seen: list[tuple[str, str, int]] = []   # (operator, file, line) of the candidate's
        self.scalar_reads = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.overloadpacket.__name__ if hasattr(func, "overloadpacket") else str(func)
        if name not in LAUNCHER_OPS or name == "_local_scalar_dense":
            origin = _origin(sys._getframe(1))
            if origin is not None and name != "_local_scalar_dense":
                self.seen.append((str(func), *origin))
            elif origin is not None:
                self.scalar_reads += 1
                if self.scalar_reads == MAX_SCALAR_READS + 1:
                    self.seen.append((f"{str(func)}, read more than {MAX_SCALAR_READS} times (host arithmetic)",
                                      *origin))
        return func(*args, **(kwargs or {}))


def kernel_language_only(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (a candidate's Triton entry) with every call watched: a call in which the candidate's
    own code ran a PyTorch operator that computes raises ``Rejection(rejected_torch_compute)``
    naming the operator and the line, after the call has finished."""
    def watched(*args: Any, **kwargs: Any) -> Any:
        watch = _Watch()
        with watch:
            result = fn(*args, **kwargs)
        if watch.seen:
            op, _file, line = watch.seen[0]
            raise Rejection(Status.REJECTED_TORCH_COMPUTE, "torch_compute",
                            f"line {line}: the launcher computed with PyTorch ({op}"
                            f"{f', and {len(watch.seen) - 1} more' if len(watch.seen) > 1 else ''}); "
                            f"the answer must come from the template's kernels (a launcher may only "
                            f"allocate, view, copy and fill tensors)")
        return result
    return watched
