"""The problems a template may name in its front matter."""

from __future__ import annotations

from typing import Any, Mapping

from evaluators.problem_specs import check_problem
from evaluators.sparse_mla import SparseMlaDecode

PROBLEMS = {SparseMlaDecode.name: SparseMlaDecode}


def make_problem(name: str, args: Mapping[str, Any]):
    """The problem ``name`` with its arguments, or a ValueError naming what is at fault: an
    unknown problem, an argument it does not take, or a value it refuses (the checks the CLI makes
    before a run, without torch: evaluators.problem_specs). The worker makes each request's problem so."""
    check_problem(name, args)
    return PROBLEMS[name](**args)
