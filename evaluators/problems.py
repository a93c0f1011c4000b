"""The problems a template may name in its front matter."""

from __future__ import annotations

import inspect
from typing import Any, Mapping

from evaluators.sparse_mla import SparseMlaDecode

PROBLEMS = {SparseMlaDecode.name: SparseMlaDecode}


def make_problem(name: str, args: Mapping[str, Any]):
    """The problem ``name`` with its arguments, or a ValueError naming what is at fault: an
    unknown problem, an argument it does not take, or a value it refuses. The worker makes each
    request's problem so, and the CLI a template's (with its default genome's arguments) before a run."""
    problem = PROBLEMS.get(name)
    if problem is None:
        raise ValueError(f"problem {name!r} is not a known problem (known: {', '.join(sorted(PROBLEMS))})")
    takes = list(inspect.signature(problem).parameters)
    unknown = sorted(set(args) - set(takes))
    if unknown:
        raise ValueError(f"problem_args names {unknown}, not arguments of problem {name!r} (it takes {takes})")
    return problem(**args)
