"""The problems a template may name, as the driver checks them before a run: without PyTorch, which
costs the command 1.4 s and which the driver needs for nothing else (the worker imports it)."""

from __future__ import annotations

import inspect
from typing import Any, Mapping

from evaluators import sparse_mla_spec

SPECS = {sparse_mla_spec.NAME: sparse_mla_spec}


def check_problem(name: str, args: Mapping[str, Any]) -> tuple[str, ...]:
    """The arguments problem ``name``'s entry is called with, or a ValueError naming what is at
    fault: an unknown problem, an argument it does not take, or a value it refuses."""
    spec = SPECS.get(name)
    if spec is None:
        raise ValueError(f"problem {name!r} is not a known problem (known: {', '.join(sorted(SPECS))})")
    takes = list(inspect.signature(spec.check_args).parameters)
    unknown = sorted(set(args) - set(takes))
    if unknown:
        raise ValueError(f"problem_args names {unknown}, not arguments of problem {name!r} (it takes {takes})")
    spec.check_args(**args)
    return spec.ENTRY_ARGS
