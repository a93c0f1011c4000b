"""Safe evaluation of the constraint expressions declared in space files.

Constraints are data (``"HEADS_PER_PROGRAM * 512 <= 65536"``), so they are parsed once with
``ast`` and checked against a whitelist of node types: arithmetic, comparisons, boolean logic,
conditional expressions and a few pure functions. Anything else is rejected at load time. The
checked tree is then compiled once and run without builtins: listing the CUDA template's space
evaluates its constraints about a million times, which a walk of the tree in Python made the
bulk of the listing's 8 s.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from typing import Any

_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
_CMPOPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn)
_FUNCS = {"min": min, "max": max, "abs": abs, "ceil": math.ceil, "log2": math.log2}


class Expression:
    """A parsed constraint; ``names`` are the variables it reads."""

    def __init__(self, text: str):
        self.text = text
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError as exc:
            raise ValueError(f"not a valid expression: {text!r} ({exc.msg})") from None
        self.names = frozenset(self._check(tree.body))
        # read by always_boolean; the renaming below changes only the called functions' names,
        # which no answer of it depends on
        self._body = tree.body
        # The functions under names no space's gene can take, so that a gene named like one
        # (which _check does not count as read) cannot shadow it.
        renamed = ast.fix_missing_locations(_RenameFunctions().visit(tree))
        self._code = compile(renamed, f"<constraint {text!r}>", "eval")

    def _check(self, node: ast.AST) -> set[str]:
        names: set[str] = set()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                if sub.id not in _FUNCS:
                    names.add(sub.id)
            elif isinstance(sub, ast.Call):
                if not isinstance(sub.func, ast.Name) or sub.func.id not in _FUNCS or sub.keywords:
                    raise ValueError(f"only {sorted(_FUNCS)} may be called in {self.text!r}")
            elif not isinstance(sub, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.BoolOp,
                                      ast.Compare, ast.IfExp, ast.Constant, ast.Load,
                                      ast.Tuple, ast.List, ast.operator, ast.unaryop,
                                      ast.boolop, ast.cmpop)):
                raise ValueError(f"{type(sub).__name__} is not allowed in {self.text!r}")
            if isinstance(sub, ast.BinOp) and not isinstance(sub.op, _BINOPS):
                raise ValueError(f"operator {type(sub.op).__name__} is not allowed in {self.text!r}")
            if isinstance(sub, ast.Compare) and not all(isinstance(op, _CMPOPS) for op in sub.ops):
                raise ValueError(f"only ==, !=, <, <=, >, >=, in and not in compare in {self.text!r}")
        return names

    def always_boolean(self, boolean_names: AbstractSet[str]) -> bool:
        """Whether every evaluation gives True or False, judged from the expression's form: a
        comparison, ``not``, a bool literal or a name in ``boolean_names`` (the space's bool genes),
        and ``and``, ``or`` and ``x if c else y`` only of those. ``and`` and ``or`` give one of their
        operands, so ``N > 1 and N * 2`` gives a number for every N > 1: a form check refuses it at
        load, where evaluating the default genome alone would miss the genomes that reach it."""
        return _boolean(self._body, boolean_names)

    def evaluate(self, env: Mapping[str, Any]) -> Any:
        """The expression's value with the genes of ``env``; a name ``env`` lacks is a KeyError."""
        try:
            return eval(self._code, _GLOBALS, env)  # noqa: S307 -- a whitelisted tree, no builtins
        except NameError as exc:
            raise KeyError(exc.name) from None


def _boolean(node: ast.AST, boolean_names: AbstractSet[str]) -> bool:
    if isinstance(node, ast.Compare) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, bool)
    if isinstance(node, ast.Name):
        return node.id in boolean_names
    if isinstance(node, ast.BoolOp):
        return all(_boolean(v, boolean_names) for v in node.values)
    if isinstance(node, ast.IfExp):
        return _boolean(node.body, boolean_names) and _boolean(node.orelse, boolean_names)
    return False


_FUNC_PREFIX = "__kg_fn_"
_GLOBALS = {"__builtins__": {}, **{_FUNC_PREFIX + name: fn for name, fn in _FUNCS.items()}}


class _RenameFunctions(ast.NodeTransformer):
    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in _FUNCS:
            return ast.copy_location(ast.Name(_FUNC_PREFIX + node.id, node.ctx), node)
        return node
