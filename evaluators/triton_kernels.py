"""The kernels of a rendered Triton module, without its host code.

Under launcher isolation (evaluators/isolated_launcher.py) the checker's process compiles and
launches a candidate's kernels but never runs its Python. The module is cut down to what a kernel
can read: its imports of Triton (and math), the module-level constants bound to literals (or to
arithmetic on literals and earlier such constants), and its ``@jit`` functions with no other
decorator (what ``@triton.heuristics`` computes arrives with each recorded launch). A kernel that
reads anything else fails to compile here, which is the candidate's compile error.
"""

from __future__ import annotations

import ast

_IMPORT_ROOTS = ("triton", "math")


class KernelSourceError(Exception):
    """The module cannot be cut down (a syntax error: the compile stage's, as without isolation)."""


def kernels_only(source: str) -> tuple[str, list[str]]:
    """(the cut-down module's source, the names of its kernels)."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise KernelSourceError(f"SyntaxError: {exc}") from None
    kept: list[ast.stmt] = []
    constants: set[str] = set()
    kernels: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Import) and all(a.name.split(".")[0] in _IMPORT_ROOTS for a in node.names):
            kept.append(node)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in _IMPORT_ROOTS and not node.level:
            kept.append(node)
        elif isinstance(node, ast.Assign) and _literal(node.value, constants) and all(
                isinstance(t, ast.Name) for t in node.targets):
            kept.append(node)
            constants.update(t.id for t in node.targets)
        elif isinstance(node, ast.FunctionDef) and any(_is_jit(d) for d in node.decorator_list):
            node.decorator_list = [d for d in node.decorator_list if _is_jit(d) and _literal_call(d, constants)]
            if node.decorator_list:
                kept.append(node)
                kernels.append(node.name)
    return ast.unparse(ast.Module(body=kept, type_ignores=[])) + "\n", kernels


def _is_jit(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return isinstance(target, ast.Attribute) and target.attr == "jit"


def _literal_call(decorator: ast.expr, constants: set[str]) -> bool:
    """``@triton.jit`` bare, or called with literal arguments only (``do_not_specialize=[...]``)."""
    if not isinstance(decorator, ast.Call):
        return True
    return all(_literal(a, constants) for a in decorator.args) and all(
        _literal(k.value, constants) for k in decorator.keywords)


def _literal(node: ast.expr, constants: set[str]) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id in constants
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_literal(e, constants) for e in node.elts)
    if isinstance(node, ast.UnaryOp):
        return _literal(node.operand, constants)
    if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.Pow):  # no 10**10**10 to hang the checker
        return _literal(node.left, constants) and _literal(node.right, constants)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "constexpr":
        return not node.keywords and all(_literal(a, constants) for a in node.args)  # tl.constexpr(64)
    return False
