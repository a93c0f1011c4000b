"""Guards against candidates that game the harness (see ../shared/reference/reward_hacking.md).

Each guard is a named check with its own rejection status. Source-level guards read the
rendered module's syntax tree; runtime guards compare fingerprints of tensors before and after
a call, repeat a call, or hold a time against the roofline floor. The harness decides where
each runs (``evaluators.harness``); this module only decides.
"""

from __future__ import annotations

import ast
import functools
import importlib
import secrets
import types

import torch

from evaluators.host_code import check_module_code, import_path, top_level_functions
from evaluators.rejection import Rejection
from evaluators.status import Status

# Modules a Triton template may import. Anything else (ctypes, os, threading, gc, inspect, ...)
# is a way to reach outside the kernel: raw memory, other threads, the harness's objects.
TRITON_IMPORTS = frozenset({"torch", "triton", "triton.language", "math",
                            # Gluon: Triton's explicit-layout dialect, compiled by the same compiler
                            "triton.experimental", "triton.experimental.gluon",
                            "triton.experimental.gluon.language",
                            "triton.experimental.gluon.language.nvidia.ampere",
                            "triton.experimental.gluon.language.nvidia.hopper"})

# Host-side names that hide work from the timer or reach into the harness.
FORBIDDEN_ATTRS = {
    "Stream": "creates a CUDA stream (work outside the timed stream)",
    "stream": "switches CUDA streams (work outside the timed stream)",
    "Event": "uses CUDA events (timer tampering)",
    "CUDAGraph": "captures its own CUDA graph",
    "graph": "captures its own CUDA graph",
    "synchronize": "synchronizes the device from inside the call",
    "_getframe": "walks interpreter frames (reads the harness's state)",
    "get_objects": "walks the garbage collector's objects (reads the harness's state)",
}
FORBIDDEN_CALLS = {"exec", "eval", "compile", "__import__", "open", "globals", "vars", "setattr",
                   "getattr", "delattr", "breakpoint"}
# Attributes that reach the process, its memory or the harness whatever object they hang from, and
# the ways out of the device's memory onto the host's (where numpy, not a kernel, would compute).
ESCAPE_ATTRS = {
    "modules": "reads the interpreter's module table (the harness's modules)",
    "environ": "reads the process environment",
    "currentframe": "walks interpreter frames (reads the harness's state)",
    "f_back": "walks interpreter frames (reads the harness's state)",
    "f_globals": "walks interpreter frames (reads the harness's state)",
    "f_locals": "walks interpreter frames (reads the harness's state)",
    "tb_frame": "walks interpreter frames (reads the harness's state)",
    "gi_frame": "walks interpreter frames (reads the harness's state)",
    "cr_frame": "walks interpreter frames (reads the harness's state)",
    "numpy": "copies a tensor into numpy (host arithmetic, not the kernel's)",
    "tolist": "copies a tensor into Python lists (host arithmetic, not the kernel's)",
    "from_numpy": "makes a tensor of host arithmetic's result",
    "load_library": "loads native code into the process",
    "load_inline": "builds and loads native code",
    # Triton's ways to have its own code call the candidate's (the runtime watch trusts Triton's frames)
    "constexpr_function": "has Triton call a function of the candidate's",
    "add_pre_run_hook": "has Triton call a function of the candidate's",
    "launch_enter_hook": "has Triton call a function of the candidate's",
    "launch_exit_hook": "has Triton call a function of the candidate's",
    "get_capture_scope": "reads a module's globals through Triton",
    "ag_frame": "walks interpreter frames (reads the harness's state)",
    "f_builtins": "reads the interpreter's builtins through a frame",
    "f_code": "walks interpreter frames (reads the harness's state)",
    "f_trace": "walks interpreter frames (reads the harness's state)",
    "tb_next": "walks interpreter frames (reads the harness's state)",
}
# Packages whose modules a chain of attributes may pass through: the imports a template may make.
# torch.sys, torch.os and triton.runtime.jit.inspect are other modules, reached without an import.
REACHABLE_PACKAGES = frozenset({"torch", "triton", "math"})
# ... less these of torch's: other processes, native code built or loaded at run time, the network
DENIED_MODULES = ("torch.multiprocessing", "torch.utils.cpp_extension", "torch.hub", "torch.distributed",
                  "torch.library", "torch.utils.dlpack")
# PyTorch compute in the host launcher: the answer would come from PyTorch, not the kernel.
TORCH_COMPUTE = frozenset({
    "matmul", "mm", "bmm", "einsum", "softmax", "log_softmax", "logsumexp", "exp", "exp2", "sum",
    "baddbmm", "addmm", "tensordot", "scaled_dot_product_attention", "gather", "index_select",
    "take_along_dim", "max", "amax", "where", "masked_fill", "div", "mul", "add",
})


def static_check_triton(source: str, entry: str) -> None:
    """Raise ``Rejection`` if the rendered Triton module does what a kernel template must not.
    The verdict never depends on a literal's value: the Gluon template's test guards one module a
    shape (numbers erased) on that ground; a check that reads literals must change that test."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return  # a syntax error is a compile error; the compile stage reports it
    nodes = list(ast.walk(tree))  # walked once: the walks were most of a check's time (0.1 s a Gluon genome)
    kernels = {n.name for n in nodes if isinstance(n, ast.FunctionDef) and _is_jit(n)}
    torch_names = _torch_names(nodes)
    modules = _module_bindings(nodes)
    parents = {child: n for n in nodes for child in ast.iter_child_nodes(n)}
    for node in nodes:
        _check_imports(node)
        _check_names(node)
        _check_torch_private(node, torch_names)
        _check_module_reach(node, modules, parents)
    # Names bound by `from triton... import x` (gl, async_copy, warpgroup_mma, ...) are Triton's.
    triton_names = {a.asname or a.name for n in nodes
                    if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("triton") for a in n.names}
    for fn in (n for n in nodes if isinstance(n, ast.FunctionDef)):
        if fn.name in kernels:
            _check_kernel_body(fn, kernels | triton_names)
        else:
            _check_host_body(fn)
    # last, so that a construct refused above keeps the reason that names it most closely
    check_module_code(tree, kernels, modules, _raise)
    if entry not in top_level_functions(tree):
        raise Rejection(Status.REJECTED_STATIC, "static", f"no top-level function {entry!r}")


def _raise(reason: str, node: ast.AST) -> None:
    raise _reject(reason, node)


def _reject(reason: str, node: ast.AST) -> Rejection:
    return Rejection(Status.REJECTED_STATIC, "static", f"line {getattr(node, 'lineno', '?')}: {reason}")


def _is_jit(fn: ast.FunctionDef) -> bool:
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if isinstance(target, ast.Attribute) and target.attr == "jit":
            return True
    return False


def _check_imports(node: ast.AST) -> None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name not in TRITON_IMPORTS:
                raise _reject(f"imports {alias.name}; a Triton template may import only "
                              f"{sorted(TRITON_IMPORTS)}", node)
    elif isinstance(node, ast.ImportFrom):
        if node.module not in TRITON_IMPORTS:
            raise _reject(f"imports from {node.module}", node)


def _check_names(node: ast.AST) -> None:
    if isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_ATTRS:
        raise _reject(f".{node.attr} {FORBIDDEN_ATTRS[node.attr]}", node)
    if isinstance(node, ast.Attribute) and node.attr in ESCAPE_ATTRS:
        raise _reject(f".{node.attr} {ESCAPE_ATTRS[node.attr]}", node)
    if isinstance(node, ast.Name) and node.id in FORBIDDEN_CALLS:
        raise _reject(f"uses {node.id}() (dynamic code or reflection)", node)
    if isinstance(node, ast.Attribute) and node.attr.startswith("__") and node.attr != "__name__":
        raise _reject(f"touches dunder attribute {node.attr}", node)
    if isinstance(node, ast.Name) and node.id.startswith("__"):
        raise _reject(f"uses the name {node.id} (the interpreter's own)", node)


def _module_bindings(nodes: list[ast.AST]) -> dict[str, str]:
    """Names an import binds, to the dotted path of what they name (a module or a module's attribute)."""
    bound = {}
    for n in nodes:
        if isinstance(n, ast.Import):
            for a in n.names:
                if a.asname:
                    bound[a.asname] = a.name
                else:
                    head = a.name.split(".")[0]
                    bound[head] = head
        elif isinstance(n, ast.ImportFrom) and n.module and not n.level:
            for a in n.names:
                bound[a.asname or a.name] = f"{n.module}.{a.name}"
    return bound


@functools.lru_cache(maxsize=4096)  # each prefix of a chain, for each of its attribute nodes: once
def _resolve(path: str) -> object:
    """The object a dotted path names in this process (the worker has torch and Triton loaded), or
    None where it names nothing."""
    parts = path.split(".")
    try:
        obj = importlib.import_module(parts[0])
    except ImportError:
        return None
    for part in parts[1:]:
        nxt = getattr(obj, part, None)
        if nxt is None:
            try:
                nxt = importlib.import_module(f"{getattr(obj, '__name__', '')}.{part}")
            except ImportError:
                return None
        obj = nxt
    return obj


def _check_module_reach(node: ast.AST, modules: dict[str, str], parents: dict[ast.AST, ast.AST]) -> None:
    """An attribute chain from an imported name (``torch.sys.modules``, ``torch.os.write``,
    ``triton.runtime.jit.inspect``) is followed on the real modules: where it passes through a
    module outside torch, Triton and math, or an object of another package (``operator.attrgetter``
    as torch.autograd.profiler_util.attrgetter: a dotted string then reaches anything), it reaches
    what no import would be allowed to, and is refused; so is an assignment to a module's attribute
    (a launcher changes no module's state: ``torch.cuda.Event = ...``, a flag of torch's that the
    reference or the layer reads), and an imported module used as a value (``T = torch``, a default
    ``T=torch``, ``[torch][0]``): every check here reads chains from the imported names, which an
    alias would hide."""
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
        for t in targets:
            if isinstance(t, ast.Attribute) and _root_name(t) in modules:
                raise _reject(f"assigns to {ast.unparse(t)}: a launcher changes no module's state", node)
    if isinstance(node, ast.Name) and node.id in modules and isinstance(_resolve(modules[node.id]), types.ModuleType):
        parent = parents.get(node)
        if not (isinstance(parent, ast.Attribute) and parent.value is node):
            raise _reject(f"uses the module {node.id} as a value (an alias, an argument, a container): only "
                          f"{node.id}.NAME reads are allowed", node)
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        for alias in node.names:
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                _check_reached(f"{node.module}.{alias.name}", f"from {node.module} import {alias.name}", node)
        return
    if not isinstance(node, ast.Attribute):
        return
    root, full = import_path(node, modules)
    if root is None:
        return
    path, text = modules[root], ast.unparse(node)
    for attr in full[len(path) + 1:].split("."):
        path = f"{path}.{attr}"
        if _check_reached(path, text, node) is None:
            return
    parent = parents.get(node)
    if isinstance(_resolve(path), types.ModuleType) and not (isinstance(parent, ast.Attribute) and parent.value is node):
        raise _reject(f"uses the module {ast.unparse(node)} as a value (an alias, an argument, a container): only "
                      f"{ast.unparse(node)}.NAME reads are allowed", node)


# builtins a chain may end at where a torch or Triton module re-exports them: none that reflects
_REFLECTION = frozenset({"getattr", "setattr", "delattr", "eval", "exec", "compile", "open", "__import__",
                         "globals", "locals", "vars", "breakpoint", "type", "object", "super", "memoryview", "input"})


def _check_reached(path: str, text: str, node: ast.AST) -> object:
    obj = _resolve(path)
    if obj is None or isinstance(obj, (int, float, complex, str, bytes, bool, tuple, frozenset)):
        return obj
    if isinstance(obj, types.ModuleType):
        name = obj.__name__
        if name.split(".")[0] not in REACHABLE_PACKAGES or any(name == d or name.startswith(d + ".")
                                                               for d in DENIED_MODULES):
            raise _reject(f"{text} reaches module {name}, which a template may not import", node)
        return obj
    home = getattr(obj, "__module__", None)
    if not isinstance(home, str):
        return obj
    if home == "builtins":
        if getattr(obj, "__name__", None) in _REFLECTION:
            raise _reject(f"{text} reaches the builtin {obj.__name__} (reflection)", node)
    elif home.split(".")[0] not in REACHABLE_PACKAGES:
        raise _reject(f"{text} reaches {home}.{getattr(obj, '__qualname__', type(obj).__name__)}, which is "
                      f"not torch's, Triton's or math's", node)
    return obj


def _torch_names(nodes: list[ast.AST]) -> set[str]:
    """The names a module binds to torch or to something imported from it."""
    names = set()
    for n in nodes:
        if isinstance(n, ast.Import):
            names |= {a.asname or a.name.split(".")[0] for a in n.names if a.name.split(".")[0] == "torch"}
        elif isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "torch":
            names |= {a.asname or a.name for a in n.names}
    return names


def _check_torch_private(node: ast.AST, torch_names: set[str]) -> None:
    """PyTorch's private API (torch._C, torch.utils._python_dispatch, ...) can switch off the
    runtime watch on the launcher's PyTorch calls (evaluators.torch_ops_guard); no launcher needs it."""
    if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch":
        private = [a.name for a in node.names if a.name.startswith("_")]
        if private:
            raise _reject(f"imports {private[0]} from {node.module}: PyTorch's private API", node)
    if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
            and _root_name(node) in torch_names):
        raise _reject(f"touches {ast.unparse(node)}: PyTorch's private API", node)


def _check_kernel_body(fn: ast.FunctionDef, kernels: set[str]) -> None:
    """Inside @triton.jit (or @gluon.jit): only tl.*, triton.*, other kernels of the module, names
    imported from Triton's modules, and builtins the Triton front end knows (range, min, max, ...)."""
    allowed_builtins = {"range", "min", "max", "abs", "len", "int", "float", "print"}
    for node in ast.walk(fn):
        if not isinstance(node, ast.Call):
            continue
        root = _root_name(node.func)
        if root in ("tl", "triton") or root in kernels or root in allowed_builtins:
            continue
        if isinstance(node.func, ast.Attribute) and root not in ("torch", "np", "numpy", "math"):
            continue  # methods of tl tensors: x.to(...), ptr.dtype.element_ty, ...
        raise _reject(f"kernel {fn.name} calls {ast.unparse(node.func)}; only triton.language "
                      f"is allowed inside a kernel", node)


def _check_host_body(fn: ast.FunctionDef) -> None:
    for node in ast.walk(fn):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            raise _reject(f"{fn.name} multiplies matrices with '@' on the host", node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if _root_name(node.func) == "torch" and node.func.attr in TORCH_COMPUTE:
                raise _reject(f"{fn.name} computes with torch.{node.func.attr}; the answer must come "
                              f"from the Triton kernel", node)


def _root_name(func: ast.AST) -> str | None:
    while isinstance(func, ast.Attribute):
        func = func.value
    return func.id if isinstance(func, ast.Name) else None


# -- runtime guards -------------------------------------------------------------------------

def fingerprint(tensors: tuple[torch.Tensor, ...], key: int, chunk: int = 1 << 25) -> list[tuple[int, ...]]:
    """Content fingerprints: per tensor, the sum and a weighted sum of its bytes read as 64-bit
    words (wrapping), in chunks so that a 19 GB cache needs no 19 GB temporary. The weights are
    drawn from ``key``, a secret the harness draws for each guarded call: with weights a
    candidate could know (their positions, as before), a write could be paid back in two words
    of a row no index reads, and the print would not change."""
    prints = []
    for n, t in enumerate(tensors):
        raw = t.detach().contiguous().view(torch.uint8).flatten()
        tail = raw[raw.numel() // 8 * 8:]
        words = raw[: raw.numel() // 8 * 8].view(torch.int64)
        total = weighted = 0
        for start in range(0, words.numel(), chunk):
            part = words[start:start + chunk]
            gen = torch.Generator(t.device).manual_seed(hash((key, n, start)) & ((1 << 63) - 1))
            weights = torch.randint(-(1 << 62), 1 << 62, (part.numel(),), generator=gen, device=t.device,
                                    dtype=torch.int64)
            total += int(part.sum())
            weighted += int((part * weights).sum())
        prints.append((total, weighted, int(tail.sum()) if tail.numel() else 0))
    return prints


class Witness:
    """What tensors held, to tell later whether anything wrote to them: a copy of each where they
    are small (exact, and faster than a fingerprint's weights: CPU shapes, small GPU shapes), else
    their fingerprints under a secret key (a 19 GB cache is not copied)."""

    COPY_LIMIT = 256 << 20  # bytes

    def __init__(self, tensors: tuple[torch.Tensor, ...]):
        self.key = secrets.randbits(62)
        small = sum(t.numel() * t.element_size() for t in tensors) <= self.COPY_LIMIT
        self.copies = [t.detach().clone() for t in tensors] if small else None
        self.prints = None if small else fingerprint(tensors, self.key)

    def unchanged(self, tensors: tuple[torch.Tensor, ...]) -> bool:
        if self.copies is None:
            return fingerprint(tensors, self.key) == self.prints
        return all(torch.equal(_bytes(a), _bytes(b)) for a, b in zip(tensors, self.copies))


def _bytes(t: torch.Tensor) -> torch.Tensor:
    t = t.detach().contiguous()
    return t.view(torch.uint8) if t.dtype != torch.uint8 else t


def outputs_agree(first: tuple[torch.Tensor, ...], second: tuple[torch.Tensor, ...]) -> str | None:
    """Same inputs, two calls: the outputs must be bitwise equal (NaN patterns included)."""
    for i, (a, b) in enumerate(zip(first, second)):
        if not torch.equal(a.view(torch.uint8) if a.dtype != torch.uint8 else a,
                           b.view(torch.uint8) if b.dtype != torch.uint8 else b):
            nan_a, nan_b = torch.isnan(a), torch.isnan(b)
            diff = (a.double() - b.double()).abs()[~(nan_a | nan_b)]
            return (f"output {i} differs between two calls on the same inputs "
                    f"(max diff {float(diff.max()) if diff.numel() else 0.0:.3g}, "
                    f"NaN in {int(nan_a.sum())} vs {int(nan_b.sum())} elements)")
    return None


def below_roofline(median_us: float, floor_us: float | None, slack: float = 0.95) -> bool:
    """A time under the physical floor (with 5% slack for ceiling measurement error)."""
    return floor_us is not None and median_us < slack * floor_us


def hidden_work(median_us: float, window_us: float | None, factor: float = 3.0,
                slack_us: float = 50.0) -> bool:
    """The device-wide window per call far exceeds the event-timed call: something the call
    started kept the device busy outside the timed stream. (Back-to-back replays run with a
    warm L2 and no flush, so an honest window is at most about the event time plus launch cost.)"""
    return window_us is not None and window_us > factor * median_us + slack_us
