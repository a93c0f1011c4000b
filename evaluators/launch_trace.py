"""What a Triton launcher did in one call, as data: the trace its isolated process records
(evaluators/launch_recorder.py) and the checker replays (evaluators/isolated_launcher.py).

A trace is a list of steps. An ``op`` step is one ATen operator the launcher issued (an allocation,
a view, a fill: only ``LAUNCHER_OPS``), with its arguments and the ids of the tensors it returned.
A ``launch`` step is one kernel launch: the kernel's name in the module, its grid, its arguments.
Tensors are ids: 0..n-1 are the call's arguments by position (non-tensors keep their slot), and
every tensor an op returns gets the next id. The trace comes from the candidate's process, so the
checker takes nothing on trust: ``parse`` checks every field before a step runs, and a trace that
names an operator off the list, a kernel the module does not define or a tensor no step made is
refused, whatever wrote it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from evaluators.torch_ops_guard import LAUNCHER_OPS

MAX_STEPS = 512
REPLAYED_OPS = LAUNCHER_OPS - {"_local_scalar_dense"}  # a host read has no value to replay
_ENUMS = {"layout": torch.layout, "memory_format": torch.memory_format}


class TraceError(Exception):
    """A trace the checker refuses: malformed, or asking for what a launcher may not do."""


# -- encoding (the recorder's side) ---------------------------------------------------------------
def encode(value: Any, tensor_id) -> Any:
    """``value`` as JSON; ``tensor_id(t)`` names a tensor (raises for one it does not know)."""
    if isinstance(value, torch.Tensor):
        return {"t": tensor_id(value)}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return {"f": repr(value)}  # repr: nan, inf and every bit of the value survive JSON
    if isinstance(value, (list, tuple)):
        return {"seq": [encode(v, tensor_id) for v in value]}
    if isinstance(value, torch.dtype):
        return {"dtype": str(value).removeprefix("torch.")}
    if isinstance(value, torch.device):
        return {"device": value.type}
    for kind, cls in _ENUMS.items():
        if isinstance(value, cls):
            return {kind: str(value).removeprefix("torch.")}
    raise TraceError(f"a launcher passed a {type(value).__name__} ({value!r:.80}), which an isolated launcher "
                     f"cannot hand on (tensors, numbers, strings, dtypes and sequences of them only)")


# -- parsing and replay (the checker's side) ------------------------------------------------------
@dataclass(frozen=True)
class Step:
    op: Any            # the ATen overload, or None for a launch
    kernel: str | None
    grid: tuple[int, ...] | None
    args: list
    kwargs: dict
    out: list[int]


def parse(trace: Any, tensor_args: set[int], kernels: set[str]) -> list[Step]:
    """The steps of ``trace``, each field checked; ``tensor_args``: the positions of the call's
    tensors (the ids a trace may use before a step has made one)."""
    if not isinstance(trace, list) or len(trace) > MAX_STEPS:
        raise TraceError(f"a trace is a list of at most {MAX_STEPS} steps")
    known = set(tensor_args)
    steps = []
    for i, raw in enumerate(trace):
        where = f"step {i}"
        if not isinstance(raw, dict):
            raise TraceError(f"{where}: not an object")
        args, kwargs = raw.get("args", []), raw.get("kwargs", {})
        if not isinstance(args, list) or not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
            raise TraceError(f"{where}: args must be a list and kwargs an object")
        for v in [*args, *kwargs.values()]:
            _check_value(v, known, where)
        if "op" in raw:
            op = _operator(raw["op"], where)
            out = raw.get("out", [])
            if not isinstance(out, list) or not all(type(o) is int and o >= 0 for o in out):
                raise TraceError(f"{where}: out must be a list of tensor ids")
            known.update(out)
            steps.append(Step(op, None, None, args, kwargs, out))
        elif "launch" in raw:
            if raw["launch"] not in kernels:
                raise TraceError(f"{where}: {raw['launch']!r} is not a module-level @jit kernel of the template")
            grid = raw.get("grid")
            if (not isinstance(grid, list) or not 1 <= len(grid) <= 3
                    or not all(type(g) is int and 0 <= g < 1 << 31 for g in grid)):
                raise TraceError(f"{where}: a grid is one to three non-negative ints, not {grid!r:.80}")
            steps.append(Step(None, raw["launch"], tuple(grid), args, kwargs, []))
        else:
            raise TraceError(f"{where}: neither an op nor a launch")
    return steps


def replay(steps: list[Step], call_args: tuple, kernels: dict[str, Any], device: torch.device) -> None:
    tensors = {i: a for i, a in enumerate(call_args) if isinstance(a, torch.Tensor)}
    for step in steps:
        args = [decode(v, tensors, device) for v in step.args]
        kwargs = {k: decode(v, tensors, device) for k, v in step.kwargs.items()}
        if step.op is None:
            kernels[step.kernel][step.grid](*args, **kwargs)
            continue
        result = step.op(*args, **kwargs)
        returned = list(result) if isinstance(result, (tuple, list)) else [result]
        if len(returned) != len(step.out) or not all(isinstance(t, torch.Tensor) for t in returned):
            raise TraceError(f"{step.op} returned {len(returned)} values here, {len(step.out)} tensors when recorded")
        tensors.update(zip(step.out, returned))


def _operator(name: Any, where: str) -> Any:
    parts = name.split(".") if isinstance(name, str) else []
    if len(parts) != 3 or parts[0] != "aten" or parts[1] not in REPLAYED_OPS:
        raise TraceError(f"{where}: {name!r:.80} is not an operator a launcher may issue "
                         f"(it may only allocate, view, copy and fill tensors)")
    packet = getattr(torch.ops.aten, parts[1])
    if parts[2] not in packet.overloads():  # an overload by name, never another attribute of the packet
        raise TraceError(f"{where}: this torch has no operator {name!r:.80}")
    op = getattr(packet, parts[2])
    if not isinstance(op, torch._ops.OpOverload):
        raise TraceError(f"{where}: {name!r:.80} is not an operator")
    return op


def _check_value(v: Any, known: set[int], where: str) -> None:
    if v is None or isinstance(v, (bool, int, str)):
        return
    if not isinstance(v, dict) or len(v) != 1:
        raise TraceError(f"{where}: a value of an unknown form ({v!r:.80})")
    (kind, x), = v.items()
    if kind == "t":
        if type(x) is not int or x not in known:
            raise TraceError(f"{where}: tensor {x!r:.40} is neither an argument of the call "
                             f"nor made by an earlier step")
    elif kind == "seq":
        if not isinstance(x, list):
            raise TraceError(f"{where}: a sequence must be a list")
        for e in x:
            _check_value(e, known, where)
    elif kind == "f":
        try:
            float(x)
        except (TypeError, ValueError):
            raise TraceError(f"{where}: {x!r:.40} is not a float") from None
    elif kind == "dtype":
        if not isinstance(getattr(torch, str(x), None), torch.dtype):
            raise TraceError(f"{where}: {x!r:.40} is not a torch dtype")
    elif kind in _ENUMS:
        if not isinstance(getattr(torch, str(x), None), _ENUMS[kind]):
            raise TraceError(f"{where}: {x!r:.40} is not a torch {kind}")
    elif kind != "device":  # a device's type is not read: every tensor is made on the checker's
        raise TraceError(f"{where}: a value of an unknown kind {kind!r:.40}")


def decode(v: Any, tensors: dict[int, torch.Tensor], device: torch.device) -> Any:
    if not isinstance(v, dict):
        return v
    (kind, x), = v.items()
    if kind == "t":
        return tensors[x]
    if kind == "seq":
        return tuple(decode(e, tensors, device) for e in x)
    if kind == "f":
        return float(x)
    if kind == "device":
        return device
    return getattr(torch, x)  # a dtype, layout or memory format, checked by parse
