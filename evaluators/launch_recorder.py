"""The process a Triton candidate's launcher runs in, apart from the checker (launcher isolation).

The checker (evaluators/isolated_launcher.py) starts one per candidate. It imports the candidate's
module and, for each new signature of a call (the arguments' shapes, strides, dtypes and shared
storage; the scalars' values), runs the launcher once on fake tensors of that signature and
answers with the trace of what it did (evaluators/launch_trace.py): the PyTorch operators it
issued and the kernels it launched. Nothing here touches the checker's memory, and no kernel runs
here: the process sees no GPU (the launcher's questions about the device are answered from the
checker's), and a launch is written down, not made. What the launcher computes with PyTorch
(anything but allocating, viewing, copying and filling) is refused, as in the worker's own watch.

Protocol: the first line on stdin is the set-up (source, entry, device, the device's
properties); then one request per line, ``{"args": [...]}``. One JSON reply per line on the fd
named by KG_RESPONSE_FD: ``{"ready": true}`` after the import, then per request ``{"trace": [...]}``,
``{"rejected": "torch_compute", "reason": ...}`` or ``{"error": ...}``.
"""

from __future__ import annotations

import ctypes
import json
import os
import stat
import sys
import types
from typing import Any

import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.utils._python_dispatch import TorchDispatchMode

from evaluators.launch_trace import REPLAYED_OPS, TraceError, decode, encode

_ACTIVE: list[Any] = [None]  # the recording under way, for the patched launch
_METADATA_OPS = frozenset({"prim.device.default", "prim.layout.default", "prim.dtype.default"})


def main() -> None:
    replies = os.fdopen(int(os.environ.pop("KG_RESPONSE_FD")), "w", buffering=1)
    os.dup2(2, 1)  # what the candidate prints goes to the log, never onto the replies
    sys.stdout = sys.stderr
    from evaluators.worker import _end_with_the_driver

    _end_with_the_driver(int(os.environ.get("KG_PARENT_PID", "0")))
    setup = json.loads(sys.stdin.readline())
    from evaluators.triton_backend import patch_interpreter_bf16_dot
    from evaluators.triton_kernels import load

    if setup["device"] == "cuda":
        _answer_device_queries(setup["properties"])
    else:
        patch_interpreter_bf16_dot()
    _record_launches()
    _warm(setup["device"])
    try:
        print(f"launch recorder {os.getpid()}: confined {_confine()}", file=sys.stderr)
    except OSError as exc:
        _reply(replies, {"error": f"could not confine the launcher's process: {exc}"})
        return
    try:
        entry = getattr(load(setup["source"], "candidate"), setup["entry"])
    except Exception as exc:
        _reply(replies, {"error": f"{type(exc).__name__}: {exc}"})
        return
    if not callable(entry):
        _reply(replies, {"error": f"the module's {setup['entry']!r} is not a function"})
        return
    module_file = entry.__code__.co_filename if hasattr(entry, "__code__") else ""
    _reply(replies, {"ready": True})
    for line in sys.stdin:
        _reply(replies, record(entry, json.loads(line)["args"], setup["device"], module_file))


def record(entry, descriptors: list, device: str, module_file: str) -> dict[str, Any]:
    with FakeTensorMode():
        args = _fake_args(descriptors, torch.device(device, 0) if device == "cuda" else torch.device(device))
        recording = _Recording(args, module_file)
        _ACTIVE[0] = recording
        try:
            with recording:
                entry(*args)
        except TraceError as exc:
            return {"error": f"launcher isolation: {exc}"}
        except Exception as exc:
            if recording.host_read:  # what fake tensors raise on a read: the read is the verdict
                return _host_read(recording.host_read)
            return {"error": f"{type(exc).__name__}: {exc}"}
        finally:
            _ACTIVE[0] = None
    if recording.refused:
        op, line = recording.refused[0]
        more = f", and {len(recording.refused) - 1} more" if len(recording.refused) > 1 else ""
        return {"rejected": "torch_compute",
                "reason": f"line {line}: the launcher computed with PyTorch ({op}{more}); the answer must come from "
                          f"the template's kernels (a launcher may only allocate, view, copy and fill tensors)"}
    if recording.host_read:  # read, and its failure caught by the launcher
        return _host_read(recording.host_read)
    return {"trace": recording.steps}


def _host_read(line: int | str) -> dict[str, str]:
    return {"error": f"line {line}: the launcher read a tensor's values on the host (.item(), float(t)), "
                     f"which an isolated launcher cannot: it sees shapes, not values"}


def _fake_args(descriptors: list, device) -> list:
    """The call's arguments: a fake tensor for each tensor (its storage shared with the others
    that share it in the checker, at the same byte offset), the scalars as they are."""
    storages: dict[int, Any] = {}
    args = []
    for d in descriptors:
        if not (isinstance(d, dict) and "tensor" in d):
            args.append(decode(d, {}, device))
            continue
        t = d["tensor"]
        if t["storage"] not in storages:
            storages[t["storage"]] = torch.empty(t["storage_bytes"], dtype=torch.uint8, device=device).untyped_storage()
        dtype = getattr(torch, t["dtype"])
        args.append(torch.empty(0, dtype=dtype, device=device).set_(
            storages[t["storage"]], t["offset"] // dtype.itemsize, t["shape"], t["stride"]))
    return args


class _Recording(TorchDispatchMode):
    def __init__(self, args: list, module_file: str):
        super().__init__()
        self.ids = {id(a): i for i, a in enumerate(args) if isinstance(a, torch.Tensor)}
        self.kept = list(args)  # alive while recorded: an id() is not reused for another tensor
        self.next_id = len(args)
        self.steps: list[dict] = []
        self.refused: list[tuple[str, int | str]] = []
        self.host_read: int | str | None = None
        self.module_file = module_file

    def tensor_id(self, t) -> int:
        if id(t) not in self.ids:
            raise TraceError(f"line {self.line()}: a tensor that is neither an argument of the call nor made by "
                             f"the launcher during it (a module-level tensor?) reached an operator or a kernel")
        return self.ids[id(t)]

    def line(self) -> int | str:
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename != self.module_file:
            frame = frame.f_back
        return frame.f_lineno if frame is not None else "?"

    def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
        kwargs = kwargs or {}
        name, packet = str(func), getattr(getattr(func, "overloadpacket", None), "__name__", "")
        if name in _METADATA_OPS:
            return func(*args, **kwargs)
        allowed = name.startswith("aten.") and packet in REPLAYED_OPS
        if allowed:
            step = {"op": name, "args": [encode(a, self.tensor_id) for a in args],
                    "kwargs": {k: encode(v, self.tensor_id) for k, v in kwargs.items()}}
        elif packet == "_local_scalar_dense":
            self.host_read = self.host_read or self.line()
        else:
            self.refused.append((name, self.line()))
        result = func(*args, **kwargs)
        returned = result if isinstance(result, (tuple, list)) else [result]
        out = []
        for r in returned:
            if isinstance(r, torch.Tensor):
                self.ids.setdefault(id(r), self.next_id)
                self.next_id += 1
                self.kept.append(r)
                out.append(self.ids[id(r)])
        if allowed:
            self.steps.append({**step, "out": out})
        return result

    def launch(self, kernel, grid, args: tuple, kwargs: dict) -> None:
        name = getattr(kernel.fn, "__name__", "?")
        named = getattr(sys.modules.get(getattr(kernel.fn, "__module__", ""), None), name, None)
        for _ in range(8):  # through @triton.heuristics (its .fn) to the kernel it wraps
            if named is kernel or not hasattr(named, "fn"):
                break
            named = named.fn
        if named is not kernel:
            raise TraceError(f"line {self.line()}: launched {name!r}, which is not a module-level @jit kernel "
                             f"of the template")
        if callable(grid):
            grid = grid({**dict(zip(kernel.arg_names, args)), **kwargs})
        grid = tuple(grid) if isinstance(grid, (tuple, list)) else (grid,)
        self.steps.append({"launch": name, "grid": [int(g) for g in grid],
                           "args": [encode(a, self.tensor_id) for a in args],
                           "kwargs": {k: encode(v, self.tensor_id) for k, v in kwargs.items()}})


def _record_launches() -> None:
    """Every Triton launch in this process is written down, not made; autotuning is refused (it
    times kernels, and the engine is the tuner)."""
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    def run(self, *args, grid, warmup, **kwargs):
        if warmup:
            return None  # kernel.warmup() compiles; the checker compiles at the first replayed launch
        if _ACTIVE[0] is None:
            raise TraceError("a kernel was launched outside a call of the entry (at import?)")
        _ACTIVE[0].launch(self, grid, args, kwargs)
        return None

    def autotune(self, *args, **kwargs):
        raise TraceError("@triton.autotune in a template: the engine tunes; give the configuration as genes")

    JITFunction.run = run
    InterpretedFunction.run = run
    Autotuner.run = autotune


def _confine() -> str:
    """Before the candidate's first line: no way back to more privilege (no set-user-id program, no
    file capability) and, where this runs as root, the unprivileged user instead: a process that may
    not trace, read or write the memory of the worker, the driver or any other of root's processes,
    nor write their files (Triton's cache, whose compiled launchers the worker loads). Where Python,
    torch, Triton or this repository cannot be read by other users, it stays root with no
    capability (so no tracing of the worker, which is not dumpable); where it does not run as root,
    the processes it could reach are its user's, and the kernel's ptrace scope (Yama, 1 on most
    distributions) keeps it off them. Returns how it is confined, for the log."""
    libc = ctypes.CDLL(None, use_errno=True)
    if os.geteuid() != 0:
        how = f"as user {os.geteuid()}"
    elif (unreadable := _unreadable_by_others()) is None:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)  # from root to another user: every capability goes with it
        how = f"as user {NOBODY}"
    else:
        _drop_capabilities(libc)
        how = f"as root with no capability ({unreadable} cannot be read by other users)"
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    return how


NOBODY = 65534
_PR_SET_NO_NEW_PRIVS = 38
_SYS_CAPSET = {"x86_64": 126, "aarch64": 91}
_CAPABILITY_VERSION_3 = 0x20080522


def _drop_capabilities(libc) -> None:
    machine = os.uname().machine
    if machine not in _SYS_CAPSET:
        raise OSError(f"no capset syscall number known for {machine}")
    header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable: twice 32 bits, all cleared
    if libc.syscall(_SYS_CAPSET[machine], header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


def _unreadable_by_others() -> str | None:
    """The first folder of those this process imports from that another user cannot read, or None."""
    import triton

    for folder in (os.path.dirname(os.__file__), os.path.dirname(torch.__file__), os.path.dirname(triton.__file__),
                   os.path.dirname(os.path.dirname(os.path.abspath(__file__)))):
        path = os.path.realpath(folder)
        parts = path.split(os.sep)
        for i in range(2, len(parts) + 1):
            mode = os.stat(os.sep.join(parts[:i]) or os.sep).st_mode
            if not mode & stat.S_IXOTH or (i == len(parts) and not mode & stat.S_IROTH):
                return os.sep.join(parts[:i])
    return None


def _warm(device: str) -> None:
    """What torch imports the first time fake tensors are made and viewed, imported now: once this
    process is another user, the folders it would import them from may be closed to it."""
    dev = torch.device(device, 0) if device == "cuda" else torch.device(device)
    with FakeTensorMode():
        raw = torch.empty(64, dtype=torch.uint8, device=dev)
        t = torch.empty(0, dtype=torch.bfloat16, device=dev).set_(raw.untyped_storage(), 0, (2, 4), (4, 1))
        views = [t.view(-1), t[0], t[:, 1:], t.reshape(4, 2), t.transpose(0, 1), t.as_strided((2,), (1,), 1),
                 t.unsqueeze(0).expand(2, 2, 4), t.view(torch.int16), t.flatten()]
        made = [torch.zeros(3, device=dev, dtype=torch.int32), torch.full((2,), 1.0, device=dev),
                torch.empty_like(t), t.clone(), t.contiguous(), t.to(torch.float32), torch.arange(4, device=dev)]
        t.fill_(0.0)
        t.copy_(views[3].reshape(2, 4))
        del views, made


def _answer_device_queries(properties: dict[str, Any]) -> None:
    """This process sees no GPU; the launcher's questions about the device (its multiprocessors,
    its capability) are answered with the checker's device's figures."""
    from torch._subclasses import fake_tensor

    props = types.SimpleNamespace(**properties)
    # torch.cuda.is_available() stays False: torch 2.11's fake tensors read it, and ready a CUDA
    # context when it is True (init_gpu_context), which no GPU here can give (the eightieth
    # session's H100 run: "No CUDA GPUs are available" at the first fake tensor); nor is that
    # readying done here for a torch that asks otherwise
    fake_tensor.init_gpu_context = lambda device: None
    torch.cuda.device_count = lambda: 1
    torch.cuda.current_device = lambda: 0
    torch.cuda.get_device_properties = lambda device=None: props
    torch.cuda.get_device_capability = lambda device=None: (props.major, props.minor)
    torch.cuda.get_device_name = lambda device=None: props.name
    torch.cuda.is_current_stream_capturing = lambda: False


def _reply(stream, obj: dict[str, Any]) -> None:
    stream.write(json.dumps(obj) + "\n")
    stream.flush()


if __name__ == "__main__":
    main()
