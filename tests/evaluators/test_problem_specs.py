"""The problems the driver checks without torch (evaluators/problem_specs.py) are the ones the worker
makes (evaluators/problems.py): one name, one entry, one set of arguments, one verdict on a value."""

from __future__ import annotations

import inspect

import pytest

from evaluators.problem_specs import SPECS, check_problem
from evaluators.problems import PROBLEMS, make_problem


def test_each_problem_has_one_spec_with_its_entry_and_its_arguments():
    assert set(SPECS) == set(PROBLEMS)
    for name, problem in PROBLEMS.items():
        spec = SPECS[name]
        assert problem.name == spec.NAME == name
        assert problem.entry_args == spec.ENTRY_ARGS
        assert inspect.signature(problem).parameters.keys() == inspect.signature(spec.check_args).parameters.keys()


@pytest.mark.parametrize("args", [{}, {"kv_format": "fp8_656"}, {"kv_format": "int4"}, {"kvformat": "bf16"}])
def test_the_driver_and_the_worker_give_one_verdict_on_a_problems_arguments(args):
    def verdict(make):
        try:
            make("sparse_mla_decode", args)
        except ValueError as exc:
            return str(exc)
        return None

    assert verdict(check_problem) == verdict(make_problem)
    assert (verdict(check_problem) is None) == (args.get("kv_format", "bf16") in ("bf16", "fp8_656") and
                                                 "kvformat" not in args)
