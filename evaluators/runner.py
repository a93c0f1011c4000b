"""Parent side of the worker: start it, send requests, enforce the time limit, restart it.

A crash (signal, abort, illegal address) or a hang costs only the worker process, which is
killed with its whole process group and started again before the next request. The parent
never imports torch or touches the GPU.
"""

from __future__ import annotations

import json
import os
import secrets
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from evaluators import zygote
from evaluators.status import Status

REPO_ROOT = Path(__file__).resolve().parent.parent


def repo_pythonpath() -> str:
    """PYTHONPATH for a child that imports this repository's packages from any folder (an engine
    installed elsewhere, or none, must not be the one it runs)."""
    return os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))


FORK_START_S = 60.0
# what a fork can get wrong that a new interpreter gets right: the device it evaluates on (not the
# driver's version, which nvidia-smi may fail to give a busy start, nor the versions, imported alike)
MACHINE_FIELDS = ("device_kind", "gpu", "compute_capability", "sm_count")
_BROKEN_ZYGOTES: set[str] = set()  # sockets of zygotes whose forks ended or hung before they were ready
# what a worker started as a new interpreter saw, by device (KG_DEVICE, CUDA_VISIBLE_DEVICES): the
# machine a fork on that device must see too, where its own runner has no worker before it
_MACHINES: dict[tuple[str | None, str | None], dict[str, str]] = {}


def _machine_key(env: dict[str, str]) -> tuple[str | None, str | None]:
    return env.get("KG_DEVICE"), env.get("CUDA_VISIBLE_DEVICES")


def kill_group(proc) -> None:
    """SIGKILL to a worker's process group (it leads one: a compiler it started goes too)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class RunnerStopping(RuntimeError):
    """A request reached a runner that its pool is stopping (Ctrl-C, the end of the command)."""


class GpuUnhealthy(RuntimeError):
    """The known-good canary failed after a restart: the device, not the candidate, is at fault."""


class WorkerRunner:
    def __init__(self, workdir: Path, log_path: Path, device: str = "auto",
                 timeout_s: float = 600.0, startup_timeout_s: float = 600.0,
                 gpu_index: int | None = None, canary: dict[str, Any] | None = None,
                 compile_only: bool = False):
        self.workdir, self.log_path = workdir, log_path
        self.canary = canary  # a request that must succeed on a fresh worker after a fault
        self.compile_only = compile_only  # a compile-ahead worker: Triton launches are no-ops
        self._needs_canary = False
        self.stage: str | None = None
        self.device, self.gpu_index = device, gpu_index
        self.timeout_s, self.startup_timeout_s = timeout_s, startup_timeout_s
        self.proc: subprocess.Popen | zygote.ZygoteWorker | None = None
        self.env: dict[str, str] | None = None
        # the zygote this runner's workers are forked from (evaluators/zygote.py), where the command
        # started one; else the one KG_WORKER_ZYGOTE names, if any
        self.zygote: zygote.Zygote | None = None
        self.zygote_refused = False  # a forked worker failed to start, or saw another machine
        self.closing = False  # set by kill, for good: no worker is started after it
        self._lock = threading.Lock()  # kill() (any thread) against start() assigning the worker
        self.restarts = 0
        self.served = 0  # requests answered (canaries not counted)
        self._fd = -1
        self._buf = b""
        self._eof = False

    @property
    def device_index(self) -> int | None:
        """The CUDA ordinal this worker evaluates on (None on the CPU)."""
        if self.env is None or self.env.get("device_kind") != "cuda":
            return None
        return self.gpu_index if self.gpu_index is not None else 0

    # -- lifecycle ---------------------------------------------------------------------------
    def worker_env(self) -> dict[str, str]:
        """The environment this runner's workers start with."""
        env = dict(os.environ, PYTHONUNBUFFERED="1", KG_PARENT_PID=str(os.getpid()), PYTHONPATH=repo_pythonpath())
        if self.device == "cpu":
            env.update(KG_DEVICE="cpu", TRITON_INTERPRET="1", CUDA_VISIBLE_DEVICES="")
        elif self.gpu_index is not None:
            env["CUDA_VISIBLE_DEVICES"] = str(self.gpu_index)
        if self.compile_only:
            env["KG_COMPILE_ONLY"] = "1"
        return env

    def start(self) -> dict[str, str]:
        t0 = time.monotonic()
        if self.closing:
            raise self._stopping()
        env = self.worker_env()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        # absolute: the worker runs in the repository, and a relative --out names a folder under
        # the user's directory, where the run keeps its kernels and cubins
        argv = [sys.executable, "-m", "evaluators.worker", str(Path(self.workdir).resolve())]
        socket_path = self._zygote_socket(env)
        started = self._from_zygote(socket_path, argv, env) if socket_path else None
        forked = started is not None
        if started is None:
            read_fd, write_fd = os.pipe()
            try:
                with open(self.log_path, "ab") as log:
                    started = (subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=log, stderr=log,
                                                pass_fds=(write_fd,), env=dict(env, KG_RESPONSE_FD=str(write_fd)),
                                                cwd=REPO_ROOT, start_new_session=True), read_fd)
            except BaseException:
                os.close(read_fd)
                raise
            finally:
                os.close(write_fd)
        with self._lock:  # a kill() from now on finds this worker; one before it is seen below
            self.proc, (self._fd, self._buf, self._eof) = started[0], (started[1], b"", False)
        # a fork is ready in well under a second: one that is not within FORK_START_S is stuck on
        # something it inherited, and a new interpreter has the rest of the time
        hello = None if self.closing else self._read(
            min(FORK_START_S, self.startup_timeout_s) if forked else self.startup_timeout_s)
        if self.closing:  # killed while it started (Ctrl-C): no fault of the worker or the zygote
            self.stop()
            raise self._stopping()
        not_started = not hello or not hello.get("ready")
        if forked and (why := self._fork_refusal(hello, env)):
            self.stop()
            self.zygote_refused = True  # and for every restart after it: the recursion ends here
            with open(self.log_path, "a") as log:
                log.write(f"runner: a worker forked by the zygote {why}; this runner's workers start as new "
                          "interpreters from now on\n")
            started_env = self.start()
            if not_started:
                # a new interpreter started where the fork did not: the zygote is at fault, and no
                # runner asks it again (a worker that fails either way, as a compile-ahead worker on
                # a machine without a GPU, says nothing of the zygote)
                _BROKEN_ZYGOTES.add(socket_path)
            return started_env
        if not_started:
            self.stop()
            raise RuntimeError(f"the evaluation worker did not start; see {self.log_path}")
        if not forked:  # what a worker on this device sees, for the forks after it to match
            _MACHINES.setdefault(_machine_key(env), hello["env"])
        self.env = hello["env"]
        with open(self.log_path, "a") as log:  # what a restart costs, and why, for whoever reads the log
            how = "forked by the zygote" if forked else "a new interpreter"
            log.write(f"runner: worker {self.proc.pid} ready in {time.monotonic() - t0:.1f} s ({how})\n")
        return self.env

    def _zygote_socket(self, env: dict[str, str]) -> str | None:
        """The socket of the zygote to fork this start's worker from, or None for a new interpreter."""
        if self.zygote_refused or env.get(zygote.ENV) == zygote.OFF:
            return None
        if self.zygote is not None:
            # a new interpreter first on each device, to show what a fork there must see; then the
            # zygote, waited for while it imports (it started before, so it is ready before a new
            # interpreter started now would be)
            usable = (self.zygote.socket_path not in _BROKEN_ZYGOTES and _machine_key(env) in _MACHINES
                      and self.zygote.ready())
            return self.zygote.socket_path if usable else None
        named = zygote.socket_named(env)
        return None if named in _BROKEN_ZYGOTES else named

    def _fork_refusal(self, hello: dict[str, Any] | None, env: dict[str, str]) -> str | None:
        """Why a forked worker is no worker of this run (None: it is): it did not start, or it
        describes another machine than a new interpreter on its device did (a CUDA driver the
        zygote had loaded leaves its children without a GPU, and they would evaluate on the CPU)."""
        if not hello or not hello.get("ready"):
            if self._eof and self.proc is not None:  # its reply channel closed: it is ending; let it, to say how
                try:
                    code = self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    code = "unknown"
                return f"ended before it was ready (exit status {code}; its output is above)"
            return f"was not ready within {min(FORK_START_S, self.startup_timeout_s):g} s"
        seen = self.env or _MACHINES.get(_machine_key(env))
        differ = {k: (seen.get(k), hello["env"].get(k)) for k in MACHINE_FIELDS
                  if seen is not None and seen.get(k) != hello["env"].get(k)}
        return f"found {differ} (before -> forked)" if differ else None

    def _from_zygote(self, socket_path: str, argv: list[str], env: dict[str, str],
                     ) -> tuple[zygote.ZygoteWorker, int] | None:
        """A worker forked by the zygote at ``socket_path`` and its reply channel, or None where
        that zygote gives none (gone, another Python, torch imported under other settings): a new
        interpreter then, on a channel of its own, which a worker the zygote forked before failing
        cannot write to."""
        read_fd, write_fd = os.pipe()
        try:
            return zygote.spawn(socket_path, argv, env, REPO_ROOT, self.log_path, write_fd), read_fd
        except OSError as exc:
            os.close(read_fd)
            with open(self.log_path, "a") as log:
                log.write(f"runner: no worker from the zygote ({exc}); starting a new interpreter\n")
            return None
        finally:
            os.close(write_fd)

    def kill(self) -> None:
        """End the worker now, from any thread, and start no other: a thread waiting on its reply,
        or on its start, sees it end and raises RunnerStopping; ``stop`` then closes the channel.
        (``stop`` itself closes the channel a thread may still be reading, whose number a file
        opened next could take.)"""
        with self._lock:
            self.closing = True
            proc = self.proc
        if proc is not None and proc.returncode is None:
            kill_group(proc)

    def stop(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                kill_group(self.proc)
            self.proc.wait()
            if self.proc.stdin:
                self.proc.stdin.close()
            self.proc = None
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    # -- requests ----------------------------------------------------------------------------
    def evaluate(self, request: dict[str, Any]) -> dict[str, Any]:
        if self._needs_canary and self.canary is not None:
            self._needs_canary = False
            check = self._send(self.canary)
            if check.get("status") != Status.OK.value:
                raise GpuUnhealthy(f"the canary failed on a fresh worker after a fault"
                                   f"{self._where()}: {check.get('status')}: {check.get('error')}")
        reply = self._send(request)
        self.served += 1
        reply["device_index"] = self.device_index  # a restart keeps the GPU and the environment
        return reply

    def _stopping(self) -> RunnerStopping:
        return RunnerStopping(f"the worker runner is stopping{self._where()}")

    def _where(self) -> str:
        return f" (GPU {self.gpu_index})" if self.gpu_index is not None else ""

    def _send(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.closing:  # the command is stopping (Ctrl-C): no new worker, no more requests
            raise self._stopping()
        if self.proc is None or self.proc.poll() is not None:
            self.stop()
            self.start()
        assert self.proc is not None and self.proc.stdin is not None
        self.stage = None
        nonce = secrets.token_hex(16)
        try:
            self.proc.stdin.write((json.dumps({**request, "nonce": nonce}) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass  # the worker is gone; _read reports how it died
        t0 = time.monotonic()
        reply = self._read(self.timeout_s)
        if reply is None:
            return self._failed(time.monotonic() - t0)
        if reply.pop("nonce", None) != nonce:
            # only code running in the worker beside the harness (a candidate's launcher) can have
            # written it; what else that process has sent or will send is not to be believed
            stage = self.stage
            self._restart()
            return {"status": Status.REJECTED_FORGED_REPLY.value, "stage": stage or "reply",
                    "error": "the worker's reply channel carried a reply without this request's nonce: "
                             "the candidate wrote to the harness's channel", "verify": [], "workloads": [],
                    "env": self.env}
        if reply.pop("restart", False):
            self._restart()
        return reply

    def _failed(self, waited_s: float) -> dict[str, Any]:
        if self.closing:  # killed by kill(): no verdict on the request (and no canary blamed)
            self.stop()
            raise self._stopping()
        stage = self.stage
        if self._eof and self.proc is not None:
            try:  # the pipe closed: the process is exiting; let it, to read how
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        alive = self.proc is not None and self.proc.poll() is None
        if alive:
            status = Status.COMPILE_TIMEOUT if stage == "compile" else Status.TIMEOUT
            error = f"no answer within {self.timeout_s:g} s (stage {stage}); worker killed"
        else:
            code = self.proc.returncode if self.proc else None
            how = (f"killed by signal {signal.Signals(-code).name}" if code is not None and code < 0
                   else f"exited with status {code}")
            status, error = Status.WORKER_CRASH, f"worker {how} after {waited_s:.1f} s: {self._log_tail()}"
        self._restart()
        return {"status": status.value, "stage": stage, "error": error, "verify": [], "workloads": [],
                "env": self.env}

    def _restart(self) -> None:
        self.stop()
        self.restarts += 1
        self._needs_canary = True

    def _read(self, timeout_s: float) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout_s
        while b"\n" not in self._buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([self._fd], [], [], min(remaining, 1.0))
            if not ready:
                if self.proc is not None and self.proc.poll() is not None:
                    self._eof = True
                    return None
                continue
            chunk = os.read(self._fd, 1 << 20)
            if not chunk:
                self._eof = True
                return None
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        message = json.loads(line)
        if "progress" in message:
            self.stage = message["progress"]
            return self._read(deadline - time.monotonic())
        return message

    def _log_tail(self, n: int = 600) -> str:
        try:
            data = self.log_path.read_bytes()[-n:]
        except OSError:
            return ""
        return data.decode(errors="replace").strip().replace("\n", " | ")
