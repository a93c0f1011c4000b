"""The kernels of a rendered Triton module, without its host code.

Under launcher isolation (evaluators/isolated_launcher.py) the checker's process compiles and
launches a candidate's kernels but never runs its host code. The module is rebuilt from what a
kernel can read, and nothing in the rebuilt module runs Python of the candidate's when it is
loaded:
- its imports of Triton (and math), by name;
- its module-level constants, evaluated here (numbers, strings, tuples of them, arithmetic on
  them and on math's constants and functions, within bounds) and written back as literals, with
  ``tl.constexpr`` kept where the source had it;
- its ``@jit`` functions (``triton.jit``, ``gluon.jit`` or an imported ``jit``, with literal
  arguments only), whose signatures may hold only names and ``constexpr`` annotations: a default
  or another annotation is an expression Python would evaluate here, so such a kernel is refused.
What a kernel reads that is not kept fails to compile here, the candidate's compile error. A
kernel's body is still compiled (on a GPU) or run as Python (under the interpreter) in this
process: the static guard's check of kernel bodies is what stands there.
"""

from __future__ import annotations

import ast
import hashlib
import linecache
import math
import sys
import types
from typing import Any

_JIT_MODULES = ("triton", "triton.experimental.gluon")
_LANGUAGE_MODULES = ("triton.language", "triton.experimental.gluon.language")
_MATH = {"e": math.e, "pi": math.pi, "tau": math.tau, "inf": math.inf, "nan": math.nan}
_MATH_FUNCTIONS = {"log", "log2", "log10", "exp", "exp2", "sqrt", "ceil", "floor"}
_MAX_INT = 1 << 256  # a constant past this is no kernel's size: arithmetic that grows it is refused
_MAX_TEXT = 1000
_TL = "_kg_tl"  # the rebuilt module's own name for triton.language, for the constexprs it writes back


class KernelSourceError(Exception):
    """The module cannot be rebuilt for isolation (a syntax error, a kernel with a default)."""


def kernels_only(source: str) -> tuple[str, list[str]]:
    """(the rebuilt module's source, the names of its kernels)."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise KernelSourceError(f"SyntaxError: {exc}") from None
    modules: dict[str, str] = {}  # a name bound by an import -> the module or object it names
    constants: dict[str, Any] = {}
    kept: list[str] = []
    kernels: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            kept.extend(_imports(node, modules))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            kept.extend(_constant(node, modules, constants))
        elif isinstance(node, ast.FunctionDef) and any(_jit_decorator(d, modules) is not None
                                                       or _named_jit(d) for d in node.decorator_list):
            kept.append(_kernel(node, modules, constants))
            kernels.append(node.name)
    return "\n".join([f"import triton.language as {_TL}", *kept]) + "\n", kernels


def load(source: str, kind: str = "kernels") -> types.ModuleType:
    """A module made from ``source`` in memory: no file that another process could write stands
    between the source and what is loaded (Triton reads a kernel's source from linecache, where
    it is registered)."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    name = f"kg_{kind}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    filename = f"<kernel-genome {kind} {digest}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)  # mtime None: kept
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    try:
        exec(compile(source, filename, "exec"), module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module


# -- imports ----------------------------------------------------------------------------------
def _imports(node: ast.Import | ast.ImportFrom, modules: dict[str, str]) -> list[str]:
    if isinstance(node, ast.Import):
        kept = [a for a in node.names if a.name.split(".")[0] in ("triton", "math")]
        for a in kept:
            modules[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        return [f"import {a.name}" + (f" as {a.asname}" if a.asname else "") for a in kept]
    base = node.module or ""
    if node.level or base.split(".")[0] not in ("triton", "math"):
        return []
    for a in node.names:
        modules[a.asname or a.name] = f"{base}.{a.name}"
    names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in node.names)
    return [f"from {base} import {names}"]


def _path(node: ast.expr, modules: dict[str, str]) -> str | None:
    """The dotted path an attribute chain on an imported name spells (``tl.constexpr`` ->
    ``triton.language.constexpr``), or None for anything else."""
    if isinstance(node, ast.Name):
        return modules.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _path(node.value, modules)
        return f"{base}.{node.attr}" if base else None
    return None


# -- constants --------------------------------------------------------------------------------
def _constant(node: ast.Assign | ast.AnnAssign, modules: dict[str, str], constants: dict[str, Any]) -> list[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    if node.value is None or not all(isinstance(t, ast.Name) for t in targets):
        return []
    constexpr = isinstance(node, ast.AnnAssign) and _is_constexpr(node.annotation, modules)
    value = node.value
    if _is_constexpr_call(value, modules):
        constexpr, value = True, value.args[0]
    try:
        result = _evaluate(value, modules, constants)
    except _NotConstant:
        return []
    lines = []
    for t in targets:
        constants[t.id] = result
        lines.append(f"{t.id} = {_TL}.constexpr({result!r})" if constexpr
                     else f"{t.id} = {result!r}")
    return lines


class _NotConstant(Exception):
    pass


def _evaluate(node: ast.expr, modules: dict[str, str], constants: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool, type(None))):
        return _bounded(node.value)
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_evaluate(e, modules, constants) for e in node.elts)
    path = _path(node, modules)
    if path and path.startswith("math.") and path[5:] in _MATH:
        return _MATH[path[5:]]
    numbers = (int, float, bool)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Invert, ast.Not)):
        operand = _evaluate(node.operand, modules, constants)
        if isinstance(operand, numbers):
            return _bounded(_UNARY[type(node.op)](operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left, modules, constants), _evaluate(node.right, modules, constants)
        if isinstance(left, numbers) and isinstance(right, numbers):
            if isinstance(node.op, (ast.LShift, ast.Pow)) and abs(right) > 256:
                raise _NotConstant  # 1 << 10**9 would stall this process before any timeout
            try:
                return _bounded(_BINARY[type(node.op)](left, right))
            except (ArithmeticError, ValueError):
                raise _NotConstant from None
    if (isinstance(node, ast.Call) and not node.keywords and (path := _path(node.func, modules))
            and path.startswith("math.") and path[5:] in _MATH_FUNCTIONS):
        args = [_evaluate(a, modules, constants) for a in node.args]
        if all(isinstance(a, numbers) for a in args):
            try:
                return _bounded(getattr(math, path[5:])(*args))
            except (ArithmeticError, ValueError, TypeError):
                raise _NotConstant from None
    raise _NotConstant


def _bounded(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _MAX_INT:
        raise _NotConstant
    if isinstance(value, str) and len(value) > _MAX_TEXT:
        raise _NotConstant
    return value


_UNARY = {ast.USub: lambda a: -a, ast.UAdd: lambda a: +a, ast.Invert: lambda a: ~a, ast.Not: lambda a: not a}
_BINARY = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
           ast.Pow: lambda a, b: a ** b, ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b,
           ast.BitOr: lambda a, b: a | b, ast.BitAnd: lambda a, b: a & b, ast.BitXor: lambda a, b: a ^ b}


def _is_constexpr(node: ast.expr, modules: dict[str, str]) -> bool:
    path = _path(node, modules)
    return path is not None and path in {f"{m}.constexpr" for m in _LANGUAGE_MODULES}


def _is_constexpr_call(node: ast.expr, modules: dict[str, str]) -> bool:
    return (isinstance(node, ast.Call) and _is_constexpr(node.func, modules) and len(node.args) == 1
            and not node.keywords)


# -- kernels ----------------------------------------------------------------------------------
def _jit_decorator(node: ast.expr, modules: dict[str, str]) -> str | None:
    target = node.func if isinstance(node, ast.Call) else node
    path = _path(target, modules)
    return path if path in {f"{m}.jit" for m in _JIT_MODULES} else None


def _named_jit(node: ast.expr) -> bool:
    """Any decorator ending in ``jit``: a kernel, whether or not it may be kept (told by _kernel)."""
    target = node.func if isinstance(node, ast.Call) else node
    return (isinstance(target, ast.Attribute) and target.attr == "jit") or (
        isinstance(target, ast.Name) and target.id == "jit")


def _kernel(fn: ast.FunctionDef, modules: dict[str, str], constants: dict[str, Any]) -> str:
    def refuse(why: str) -> KernelSourceError:
        return KernelSourceError(f"line {fn.lineno}: kernel {fn.name!r} {why}; under launcher isolation a kernel's "
                                 f"signature holds only names and constexpr annotations, and its decorator is "
                                 f"triton.jit or gluon.jit with literal arguments")
    jits = [d for d in fn.decorator_list if _jit_decorator(d, modules)]
    if len(jits) != 1:
        raise refuse("has no decorator that is Triton's or Gluon's jit by its import")
    decorator = jits[0]
    if isinstance(decorator, ast.Call):
        try:
            args = [_evaluate(a, modules, constants) for a in decorator.args]
            keywords = {k.arg: _evaluate(k.value, modules, constants) for k in decorator.keywords if k.arg}
        except _NotConstant:
            raise refuse("passes its decorator a value that is not a literal") from None
        if len(keywords) != len(decorator.keywords):
            raise refuse("passes its decorator **keywords")
        call = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in keywords.items()])
        decorator_text = f"@{ast.unparse(decorator.func)}({call})"
    else:
        decorator_text = f"@{ast.unparse(decorator)}"
    a = fn.args
    if a.defaults or any(d is not None for d in a.kw_defaults) or fn.returns is not None:
        raise refuse("has a default value or a return annotation")
    if a.vararg or a.kwarg:
        raise refuse("takes *args or **kwargs")
    for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
        if arg.annotation is not None and not _is_constexpr(arg.annotation, modules):
            raise refuse(f"annotates {arg.arg!r} with something other than constexpr")
    fn.decorator_list = []
    return f"{decorator_text}\n{ast.unparse(fn)}"
