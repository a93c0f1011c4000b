"""Safe evaluation of the constraint expressions declared in space files.

Constraints are data (``"HEADS_PER_PROGRAM * 512 <= 65536"``), so they are parsed once with
``ast`` and evaluated over a whitelist of node types: arithmetic, comparisons, boolean logic,
conditional expressions and a few pure functions. Anything else is rejected at load time.
"""

from __future__ import annotations

import ast
import math
import operator
from typing import Any, Mapping

_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_CMPOPS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_FUNCS = {"min": min, "max": max, "abs": abs, "ceil": math.ceil, "log2": math.log2}


class Expression:
    """A parsed constraint; ``names`` are the variables it reads."""

    def __init__(self, text: str):
        self.text = text
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError as exc:
            raise ValueError(f"not a valid expression: {text!r} ({exc.msg})") from None
        self._body = tree.body
        self.names = frozenset(self._check(self._body))

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
            if isinstance(sub, ast.BinOp) and type(sub.op) not in _BINOPS:
                raise ValueError(f"operator {type(sub.op).__name__} is not allowed in {self.text!r}")
        return names

    def evaluate(self, env: Mapping[str, Any]) -> Any:
        return _eval(self._body, env)


def _eval(node: ast.AST, env: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return _FUNCS[node.id] if node.id in _FUNCS else env[node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_eval(e, env) for e in node.elts)
    if isinstance(node, ast.BinOp):
        return _BINOPS[type(node.op)](_eval(node.left, env), _eval(node.right, env))
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, env)
        if isinstance(node.op, ast.Not):
            return not value
        if isinstance(node.op, ast.USub):
            return -value
        return +value
    if isinstance(node, ast.BoolOp):
        values = (_eval(v, env) for v in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env)
        for op, comp in zip(node.ops, node.comparators):
            right = _eval(comp, env)
            if not _CMPOPS[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        return _eval(node.body, env) if _eval(node.test, env) else _eval(node.orelse, env)
    if isinstance(node, ast.Call):
        return _FUNCS[node.func.id](*(_eval(a, env) for a in node.args))  # type: ignore[attr-defined]
    raise ValueError(f"cannot evaluate {type(node).__name__}")
