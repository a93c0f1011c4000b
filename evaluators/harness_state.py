"""The harness's own names, held against a candidate that rebinds them.

A Triton candidate's launcher is Python in the worker's process, beside the code that checks and
times it: one that rebinds the checker (``evaluators.sparse_mla.compare``), the timer or a torch
function the reference calls would pass every check after it, its own and the next genome's.
The static guard refuses the ways it knows to reach those modules (``evaluators.guards``); this
is the runtime half: the namespaces are taken before any candidate runs, compared after each of
its calls, and put back where changed, so that the worker goes on clean.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any

import torch

from evaluators.rejection import Rejection
from evaluators.status import Status


def _watched() -> list[object]:
    """The harness's modules loaded now, and the torch namespaces its reference and checks read."""
    harness = [m for name, m in sorted(sys.modules.items()) if name.split(".")[0] == "evaluators" and m is not None]
    return [*harness, torch, torch.Tensor, torch.nn.functional, torch.cuda, torch.linalg]


# what a function carries besides its name: swapping its code in place keeps the name's identity
_FUNCTION_PARTS = ("__code__", "__defaults__", "__kwdefaults__")


class HarnessState:
    def __init__(self):
        # torch._dynamo rebinds torch.manual_seed when first imported, which the first call of any
        # Triton kernel does: imported here, before the snapshot, it is not taken for a candidate's
        import torch._dynamo  # noqa: F401
        self._saved = []  # (object, its namespace then, the label the verdict names it by)
        self._parts = []  # (function, its code and defaults then, label)
        for obj in _watched():
            self._take(obj, _label(obj))
            if not isinstance(obj, types.ModuleType) or obj.__name__.split(".")[0] != "evaluators":
                continue
            # the harness's own functions, classes and module-level objects (OUT_TOL, a frozen
            # dataclass whose fields object.__setattr__ could change) are held member by member too
            for name, value in vars(obj).items():
                label = f"{obj.__name__}.{name}"
                if isinstance(value, types.FunctionType) and value.__module__ == obj.__name__:
                    self._parts.append((value, {p: getattr(value, p) for p in _FUNCTION_PARTS}, label))
                elif isinstance(value, type) and value.__module__ == obj.__name__:
                    self._take(value, label)
                    for member, inner in vars(value).items():
                        if isinstance(inner, types.FunctionType):
                            self._parts.append((inner, {p: getattr(inner, p) for p in _FUNCTION_PARTS},
                                                f"{label}.{member}"))
                elif (hasattr(value, "__dict__") and not isinstance(value, (types.ModuleType, types.FunctionType, type))
                      and type(value).__module__.split(".")[0] == "evaluators"):
                    self._take(value, label)

    def _take(self, obj: object, label: str) -> None:
        self._saved.append((obj, dict(vars(obj)), label))

    def hold(self, instances: dict[str, object]) -> None:
        """Also hold these objects' attributes (a request's problem, the evaluator) until the next
        call of ``hold``: an attribute set on the instance shadows its class's method (``check``)."""
        self._saved = [entry for entry in self._saved if not entry[2].startswith("request:")]
        for label, obj in instances.items():
            self._take(obj, f"request:{label}")

    def changed(self) -> list[str]:
        """``module.name`` of each name rebound or removed since the snapshot, and of each of the
        harness's functions whose code or defaults were swapped in place. Names added to a module
        are not the harness's (an import adds its submodule to the package) and are left alone;
        names added to a class (``torch.Tensor.any``, shadowing its base's) are the candidate's."""
        found = []
        for obj, names, label in self._saved:
            now = vars(obj)
            found += [f"{label}.{name}" for name, value in names.items() if name not in now or now[name] is not value]
            if not isinstance(obj, types.ModuleType):  # a name added to a class shadows its base's (Tensor.any)
                found += [f"{label}.{name} (added)" for name in now if name not in names]
        found += [label for fn, parts, label in self._parts
                  if any(getattr(fn, p) is not v for p, v in parts.items())]
        return found

    def restore(self) -> None:
        for obj, names, _ in self._saved:
            now = vars(obj)
            if not isinstance(obj, types.ModuleType):
                for name in [n for n in now if n not in names]:
                    delattr(obj, name) if isinstance(obj, type) else object.__delattr__(obj, name)
            for name, value in names.items():
                if name not in now or now[name] is not value:
                    if isinstance(obj, type) or isinstance(obj, types.ModuleType):
                        setattr(obj, name, value)
                    else:
                        object.__setattr__(obj, name, value)  # a frozen dataclass too
        for fn, parts, _ in self._parts:
            for p, v in parts.items():
                if getattr(fn, p) is not v:
                    setattr(fn, p, v)


def _label(obj: object) -> str:
    return obj.__name__ if isinstance(obj, types.ModuleType) else f"{obj.__module__}.{obj.__qualname__}"


def untampered(fn: Callable[..., Any], state: HarnessState) -> Callable[..., Any]:
    """``fn`` (a candidate's entry) with the harness's names checked after every call: a call that
    rebound one raises ``Rejection(rejected_harness_tamper)`` naming it, with the names put back."""
    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        finally:
            changed = state.changed()
            if changed:
                state.restore()
                raise Rejection(Status.REJECTED_HARNESS_TAMPER, "harness_state",
                                f"the call rebound the harness's {', '.join(changed[:5])}"
                                f"{f' and {len(changed) - 5} more' if len(changed) > 5 else ''} (put back)")
    return checked
