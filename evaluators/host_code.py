"""A Triton module's host code, by allowlist.

A Triton template's launcher is Python that runs in the worker beside the harness. Three red
teams (seventy-sixth session) showed that refusing what is known to be dangerous leaves a way
through each time: an alias of a module, a builtin reached as a string key, a torch callable
handed to Triton to call, a name added to ``torch.Tensor``. A launcher needs little: arithmetic on
sizes, a tensor's shape, strides and device, scratch tensors, ``triton.cdiv`` and the kernels'
launches. So the host code (every function that is not a kernel, and the module's top level) may
use only that, and anything else is refused by name, whatever it would have done.
"""

from __future__ import annotations

import ast

# builtins a launcher calls or raises (no reflection, no iteration helpers over tensors)
HOST_BUILTINS = frozenset({"range", "len", "min", "max", "abs", "int", "float", "bool", "tuple", "list", "dict",
                           "set", "isinstance", "divmod", "round", "str", "ValueError", "RuntimeError",
                           "NotImplementedError", "TypeError", "AssertionError", "print"})
# attributes a launcher reads of its values (tensors, devices, device properties, its own dicts)
HOST_ATTRS = frozenset({
    "shape", "stride", "dtype", "device", "type", "index", "numel", "dim", "size", "ndim", "is_cuda",
    "element_size", "itemsize", "nbytes", "data_ptr", "storage_offset", "is_contiguous", "item",
    "view", "reshape", "contiguous", "flatten", "unflatten", "unsqueeze", "squeeze", "transpose", "permute",
    "narrow", "select", "expand", "to", "float", "half", "bfloat16", "int", "long",
    "new_empty", "new_zeros", "new_full", "fill_", "zero_", "copy_", "clone",
    # a dict's or a set's (a launcher's caches); on a tensor, .add is arithmetic the runtime watch refuses
    "multi_processor_count", "get", "append", "add",
})
# what an imported name may reach on the host, by its full path
HOST_API = frozenset({
    "torch.empty", "torch.empty_like", "torch.empty_strided", "torch.zeros", "torch.zeros_like", "torch.full",
    "torch.full_like", "torch.ones", "torch.ones_like", "torch.arange", "torch.device", "torch.Size",
    "torch.Tensor", "torch.dtype", "torch.finfo", "torch.iinfo",
    "torch.float32", "torch.float16", "torch.bfloat16", "torch.float64", "torch.float8_e4m3fn",
    "torch.float8_e5m2", "torch.int8", "torch.int16", "torch.int32", "torch.int64", "torch.uint8", "torch.bool",
    "torch.cuda.get_device_properties", "torch.cuda.current_device", "torch.cuda.is_available",
    "torch.cuda.is_current_stream_capturing", "torch.cuda.device_count",
    "triton.cdiv", "triton.next_power_of_2", "triton.jit", "triton.language.constexpr",
})
_STATEMENTS = (ast.Return, ast.Assign, ast.AugAssign, ast.If, ast.For, ast.While, ast.Break, ast.Continue,
               ast.Expr, ast.Raise, ast.Pass, ast.Assert)
_EXPRESSIONS = (ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.IfExp, ast.Call, ast.keyword, ast.Attribute,
                ast.Subscript, ast.Slice, ast.Starred, ast.Name, ast.Constant, ast.Tuple, ast.List, ast.Dict,
                ast.JoinedStr, ast.FormattedValue, ast.expr_context, ast.operator, ast.boolop, ast.cmpop,
                ast.unaryop, ast.arguments, ast.arg)


def check_module_code(tree: ast.Module, kernels: set[str], imports: dict[str, str], reject) -> None:
    """Raise ``reject(reason, node)`` where the module's top level, a host function or a kernel's
    body leaves its allowlist. ``imports``: names bound by imports, to the dotted path they name."""
    top = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    top |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in _names(n.targets)}
    for n in tree.body:
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(n, ast.FunctionDef):
            if n.name in kernels:
                check_kernel_code(n, top, imports, reject)
            else:
                _check_function(n, top, kernels, imports, reject)
            continue
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant):
            continue  # a docstring
        if isinstance(n, ast.Assign) and all(isinstance(t, ast.Name) for t in n.targets):
            _check_expression(n.value, top, kernels, imports, reject, set())
            continue
        reject(f"a {type(n).__name__} at the module's top level: a Triton module holds imports, kernels, "
               f"host functions and constants", n)


def _names(targets: list[ast.expr]) -> list[ast.Name]:
    found = []
    for t in targets:
        if isinstance(t, ast.Name):
            found.append(t)
        elif isinstance(t, (ast.Tuple, ast.List)):
            found += _names(list(t.elts))
    return found


def _check_function(fn: ast.FunctionDef, top: set[str], kernels: set[str], imports: dict[str, str], reject) -> None:
    if fn.decorator_list:
        reject(f"host function {fn.name} has a decorator", fn)
    args = fn.args
    params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    defaults = [d for d in [*args.defaults, *args.kw_defaults] if d is not None]
    local = set(params)
    for node in ast.walk(fn):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.For)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            local |= {t.id for t in _names(targets)}
    for d in defaults:
        _check_expression(d, top, kernels, imports, reject, set())
    for stmt in fn.body:
        _check_statement(stmt, fn.name, top | local, kernels, imports, reject)


def _check_statement(stmt: ast.stmt, fn: str, names: set[str], kernels: set[str], imports: dict[str, str],
                     reject) -> None:
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return  # a docstring
    if not isinstance(stmt, _STATEMENTS):
        reject(f"{fn} uses a {type(stmt).__name__} statement, which a launcher has no need of", stmt)
    if isinstance(stmt, (ast.Assign, ast.AugAssign)):
        for t in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
            _check_target(t, fn, reject)
    for child in ast.iter_child_nodes(stmt):
        if isinstance(child, ast.stmt):
            _check_statement(child, fn, names, kernels, imports, reject)
        else:
            _check_expression(child, names, kernels, imports, reject, set())


def _check_target(target: ast.expr, fn: str, reject) -> None:
    if isinstance(target, (ast.Tuple, ast.List)):
        for t in target.elts:
            _check_target(t, fn, reject)
    elif isinstance(target, ast.Subscript):
        if not isinstance(target.value, ast.Name):
            reject(f"{fn} assigns into {ast.unparse(target)}: only into its own names' items", target)
    elif not isinstance(target, (ast.Name, ast.Starred)):
        reject(f"{fn} assigns to {ast.unparse(target)}: a launcher sets only its own names", target)


def _check_expression(expr: ast.AST, names: set[str], kernels: set[str], imports: dict[str, str], reject,
                      seen: set) -> None:
    for node in ast.walk(expr):
        if not isinstance(node, _EXPRESSIONS):
            reject(f"a {type(node).__name__} in host code ({ast.unparse(node)[:60]}), which a launcher has no "
                   f"need of", node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):  # at the top level too
            reject("multiplies matrices with '@' on the host", node)
        if isinstance(node, ast.Name) and not (node.id in names or node.id in imports or node.id in HOST_BUILTINS):
            reject(f"host code uses {node.id}, which is none of its own names, its imports or the builtins a "
                   f"launcher calls ({', '.join(sorted(HOST_BUILTINS))})", node)
        if isinstance(node, ast.Attribute):
            root, path = import_path(node, imports)
            if root is None:
                if node.attr not in HOST_ATTRS:
                    reject(f"host code reads .{node.attr} of {ast.unparse(node.value)[:40]}: a launcher reads only "
                           f"{', '.join(sorted(HOST_ATTRS))}", node)
            elif path is not None and not path.startswith("math.") and not any(
                    path == api or api.startswith(path + ".") for api in HOST_API):
                reject(f"host code uses {ast.unparse(node)} ({path}), not in the host API a launcher may use", node)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name) \
                and node.value.id in imports:
            reject(f"host code subscripts the module {node.value.id}", node)


def import_path(node: ast.Attribute, imports: dict[str, str]) -> tuple[str | None, str | None]:
    """(root name, full dotted path) of an attribute chain from an imported name; (None, None) for
    a chain from anything else (a local, a call's result, a subscript)."""
    chain = []
    inner: ast.AST = node
    while isinstance(inner, ast.Attribute):
        chain.append(inner.attr)
        inner = inner.value
    if not isinstance(inner, ast.Name) or inner.id not in imports:
        return None, None
    return inner.id, ".".join([imports[inner.id], *reversed(chain)])


# builtins a kernel body names (Triton's front end knows them; under the interpreter they run as Python)
KERNEL_BUILTINS = frozenset({"range", "min", "max", "abs", "len", "int", "float", "bool", "print", "isinstance",
                             "tuple", "list"})
_KERNEL_STATEMENTS = (ast.Return, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.If, ast.For, ast.While, ast.Break,
                      ast.Continue, ast.Expr, ast.Pass, ast.Assert)


def check_kernel_code(fn: ast.FunctionDef, top: set[str], imports: dict[str, str], reject) -> None:
    """A kernel's body: Triton compiles it on a GPU, but under the interpreter it runs as Python,
    with Triton's own module globals added to the module's (``inspect``, ``np``): so its names
    are allowlisted as the host code's are (its parameters and locals, the module's top-level
    names, its imports, the builtins Triton knows), no name of those is rebound, and it holds no
    nested function, class, ``with`` or ``try``."""
    args = fn.args
    params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    local = set(params)
    for node in ast.walk(fn):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in _names(targets):
                if t.id in KERNEL_BUILTINS or t.id in imports or t.id in top:
                    reject(f"kernel {fn.name} rebinds {t.id}", t)
                local.add(t.id)
    names = local | top | set(imports) | KERNEL_BUILTINS
    for node in ast.walk(fn):
        if node is fn:
            continue
        if isinstance(node, ast.stmt) and not isinstance(node, _KERNEL_STATEMENTS):
            reject(f"kernel {fn.name} holds a {type(node).__name__} statement", node)
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Await,
                             ast.Yield, ast.YieldFrom, ast.NamedExpr)):
            reject(f"kernel {fn.name} holds a {type(node).__name__}", node)
        if isinstance(node, ast.Name) and node.id not in names:
            reject(f"kernel {fn.name} uses {node.id}, which is none of its own names, the module's, its "
                   f"imports or the builtins Triton knows", node)


def top_level_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """A module's top-level functions by name (a later definition of a name wins, as in Python):
    where the harness looks for a Triton entry (and the CLI, before a run, without torch)."""
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
