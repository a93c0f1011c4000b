"""A Triton candidate's entry whose Python runs in a process of its own (launcher isolation).

Without it a candidate's launcher is Python in the worker's process, beside the code that checks
and times it, and only guards that watch what it does (evaluators/guards.py, torch_ops_guard.py,
harness_state.py) stand between it and the harness. With it the launcher runs in
``evaluators.launch_recorder`` on fake tensors, once per signature of a call, and its trace
(evaluators/launch_trace.py: allocations, views, fills, kernel launches) is checked here and
replayed on the real tensors, with the kernels compiled here from the module cut down to its
``@jit`` functions and literal constants (evaluators/triton_kernels.py). No line of the candidate's
host code runs in this process, so it cannot read or rebind the harness, keep an answer between
calls, count the calls it is given or tell a timed call from a checked one: the same signature
gets the same launches. Under the interpreter (no GPU) the kernels' bodies are Python run here;
on a GPU they are compiled by Triton.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from typing import Any

import torch

from evaluators.confinement import not_dumpable
from evaluators.launch_trace import TraceError, encode, parse, replay
from evaluators.rejection import Rejection
from evaluators.runner import REPO_ROOT, kill_group, repo_pythonpath
from evaluators.status import Status
from evaluators.triton_backend import CompileError
from evaluators.triton_kernels import KernelSourceError, kernels_only
from evaluators.triton_kernels import load as load_kernels

READY_S = 120.0   # the recorder's start: an interpreter, torch, Triton and the candidate's module
RECORD_S = 30.0   # one recording: the launcher's Python on fake tensors, milliseconds when honest
MAX_REPLY = 1 << 24  # bytes of one answer: a trace of MAX_STEPS steps is a few hundred kilobytes


class LauncherTimeout(Exception):
    """The isolated launcher did not answer in time (a loop in the candidate's host code)."""


class LauncherError(RuntimeError):
    """The candidate's launcher raised, or did what an isolated launcher cannot (its message)."""


class IsolatedEntry:
    """Called as the candidate's entry would be; ``close`` ends its process."""

    def __init__(self, source: str, entry: str, device: torch.device):
        try:
            kernel_source, names = kernels_only(source)
        except KernelSourceError as exc:
            raise CompileError(str(exc)) from None
        self.device = device
        try:
            module = load_kernels(kernel_source)
        except Exception as exc:  # a name the rebuilt module lacks, Triton refusing a decorator
            raise CompileError(f"the template's kernels, rebuilt for launcher isolation: {type(exc).__name__}: {exc}"
                               ) from None
        self.kernels: dict[str, Any] = {n: getattr(module, n) for n in names}
        self._traces: dict[tuple, list] = {}
        not_dumpable()
        # what this process already has in other sessions (a caller's own workers) is not the recorder's
        self._children_before = {pid for pid, ppid, _ in _processes() if ppid == os.getpid()}
        read_fd, write_fd = os.pipe()
        env = {**os.environ, "KG_RESPONSE_FD": str(write_fd), "KG_PARENT_PID": str(os.getpid()),
               "PYTHONPATH": repo_pythonpath()}
        if device.type == "cuda":
            env["CUDA_VISIBLE_DEVICES"] = ""  # the candidate's process never sees the GPU
        else:
            env["TRITON_INTERPRET"] = "1"
        try:
            self._proc = subprocess.Popen([sys.executable, "-m", "evaluators.launch_recorder"], stdin=subprocess.PIPE,
                                          stdout=2, stderr=2, env=env,  # the worker's log
                                          cwd=REPO_ROOT, pass_fds=(write_fd,), start_new_session=True)
        finally:
            os.close(write_fd)
        self._replies = os.fdopen(read_fd, "rb", buffering=0)
        self._pending = b""  # what the recorder wrote past the line last read
        self._closed = False
        self._send({"source": source, "entry": entry, "device": device.type,
                    "properties": _properties(device)})
        ready = self._receive(READY_S, "started")
        if not ready.get("ready"):
            self.close()
            raise CompileError(f"in the isolated launcher: {ready.get('error', ready)}"[:2000])

    def __call__(self, *args: Any) -> None:
        described = _describe(args)
        key = tuple(json.dumps(d, sort_keys=True) for d in described)
        if key not in self._traces:
            self._traces[key] = self._record(args, described)
        replay(self._traces[key], args, self.kernels, self.device)

    def close(self) -> None:
        if self._closed:
            return  # once: its pid, reaped below, may be another process's by now
        self._closed = True
        kill_group(self._proc)  # even where it has ended itself: whatever the candidate started there too
        self._proc.wait()
        _kill_escaped(self._children_before)
        self._replies.close()
        if self._proc.stdin:
            self._proc.stdin.close()

    def _record(self, args: tuple, described: list) -> list:
        self._send({"args": described})
        reply = self._receive(RECORD_S, "recorded a call")
        if "trace" in reply:
            try:
                return parse(reply["trace"], {i for i, a in enumerate(args) if isinstance(a, torch.Tensor)},
                             set(self.kernels))
            except TraceError as exc:
                raise LauncherError(f"the isolated launcher's trace was refused: {exc}") from None
        if reply.get("rejected") == "torch_compute":
            raise Rejection(Status.REJECTED_TORCH_COMPUTE, "torch_compute", str(reply.get("reason", ""))[:2000])
        if isinstance(reply.get("error"), str):
            raise LauncherError(f"in the isolated launcher: {reply['error'][:2000]}")
        raise LauncherError(f"the isolated launcher answered what its protocol does not have: "
                            f"{json.dumps(reply)[:200]}")

    def _send(self, obj: dict[str, Any]) -> None:
        try:
            self._proc.stdin.write((json.dumps(obj) + "\n").encode())
            self._proc.stdin.flush()
        except BrokenPipeError:
            pass  # it ended: _receive says how

    def _receive(self, timeout_s: float, what: str) -> dict[str, Any]:
        """One line from the recorder, within ``timeout_s`` for the whole line: a recorder that
        writes half a line and stops is a timeout too."""
        deadline = time.monotonic() + timeout_s
        line = self._pending
        while b"\n" not in line:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._replies], [], [], left)[0]:
                self.close()
                raise LauncherTimeout(f"the isolated launcher had not {what} after {timeout_s:.0f} s")
            chunk = os.read(self._replies.fileno(), 1 << 16)
            if not chunk:
                break
            line += chunk
            if len(line) > MAX_REPLY:
                self.close()
                raise LauncherError(f"the isolated launcher's answer ran past {MAX_REPLY} bytes")
        line, _, self._pending = line.partition(b"\n")
        try:
            reply = json.loads(line)
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            if not line and not self._pending:
                try:
                    code = self._proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    code = "none yet: it closed its channel"
                raise LauncherError(f"the isolated launcher's process ended (exit status {code})")
            raise LauncherError(f"the isolated launcher's process wrote {line[:200]!r}")
        return reply


def _kill_escaped(before: set[int]) -> None:
    """Kills what a recorder started in a session of its own (out of reach of its group's kill).
    The worker adopts such orphans (``confinement.adopt_orphans``), and its own children run in its
    own session: a child of another session that was not there before the recorder (``before``) is
    one of them. Again until none is left: one may have forked while it was killed."""
    mine = os.getsid(0)
    for _ in range(20):
        found = [pid for pid, ppid, sid in _processes() if ppid == os.getpid() and sid != mine and pid not in before]
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass


def _processes():
    """(pid, parent pid, session id) of every process this one can see."""
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            yield int(entry.name), int(fields[1]), int(fields[3])


def _describe(args: tuple) -> list:
    """The call's arguments as the recorder makes them again: tensors by dtype, shape, strides and
    byte offset in a storage shared with the arguments that share it here; the rest by value."""
    storages: dict[int, int] = {}
    out = []
    for a in args:
        if isinstance(a, torch.Tensor):
            storage = a.untyped_storage()
            index = storages.setdefault(storage.data_ptr(), len(storages))
            out.append({"tensor": {"storage": index, "storage_bytes": storage.nbytes(),
                                   "offset": a.storage_offset() * a.element_size(),
                                   "dtype": str(a.dtype).removeprefix("torch."),
                                   "shape": list(a.shape), "stride": list(a.stride())}})
        else:
            out.append(encode(a, lambda t: 0))
    return out



def _properties(device: torch.device) -> dict[str, Any]:
    if device.type != "cuda":
        return {}
    props = torch.cuda.get_device_properties(device)
    return {name: getattr(props, name) for name in dir(props)
            if not name.startswith("_") and isinstance(getattr(props, name, None), (int, float, str, bool))}
