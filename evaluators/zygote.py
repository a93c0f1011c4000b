"""A warm process that forks evaluation workers with torch already imported.

A worker spends about 2.3 s of its start importing torch and torch._dynamo (the harness imports
the latter before it snapshots torch), before it reads its first request. A caller that starts
many workers one after another (the test suite: over a hundred, five minutes of its nineteen)
names a zygote in ``KG_WORKER_ZYGOTE`` (the path of its socket), and ``WorkerRunner`` asks it for
each worker instead of starting a new interpreter. The zygote imports only torch: the worker
imports this repository's code itself, from the folder its runner names, so an edit of the
harness is seen by the next worker as with a new interpreter.

Each request forks a reaper, which forks the worker and reports, on a pipe the runner reads, the
worker's pid and then how it ended: the worker is not the runner's child, and the runner still
needs its exit status (a crash is told by its signal). The worker's watch for its driver
(evaluators/worker.py) follows the driver's pid, not its own parent.

Serve: ``python -m evaluators.zygote SOCKET [--remove-folder]``; it prints ``ready`` once it
accepts requests and exits when the process that started it ends, removing its socket (and the
socket's folder, with --remove-folder).
"""

from __future__ import annotations

import atexit
import io
import json
import os
import runpy
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any

from evaluators.confinement import less_privileged, not_dumpable

ENV = "KG_WORKER_ZYGOTE"
OFF = "off"  # KG_WORKER_ZYGOTE=off: every worker a new interpreter, and no command starts a zygote
_MAX_REQUEST = 1 << 20
# variables that torch, Triton or the interpreter read when they are imported or start, and so took
# in the zygote the values it started with: a worker that asks for others needs a new interpreter
# (TRITON_INTERPRET above all: Triton imported without it does not interpret a kernel made with it)
_READ_AT_IMPORT = ("TRITON_", "TORCH", "PYTORCH", "OMP_", "MKL_", "KMP_", "PYTHON")
_NOT_READ_AT_IMPORT = {"PYTHONPATH", "PYTHONUNBUFFERED"}  # the worker's path and stdio are set after the fork


def socket_named(env: dict[str, str]) -> str | None:
    """The socket of the zygote ``env`` names for its workers, or None (none named, or ``off``)."""
    named = env.get(ENV, "")
    return None if named in ("", OFF) else named


def import_env_differences(env: dict[str, str], mine: dict[str, str], set_by_import: dict[str, str] | None = None,
                           ) -> list[str]:
    """The variables read at import whose values differ between ``env`` and ``mine`` (the
    zygote's at its start). A value torch set itself while imported (``set_by_import``: the
    zygote's environment after it, as TORCHINDUCTOR_CACHE_DIR), found in ``env`` because the
    caller's torch set it too, is no difference."""
    after = set_by_import or {}
    names = {n for n in (*env, *mine) if n.startswith(_READ_AT_IMPORT) and n not in _NOT_READ_AT_IMPORT}
    return sorted(n for n in names if env.get(n) != mine.get(n) and not (n not in mine and env.get(n) == after.get(n)))


# -- the caller's side ---------------------------------------------------------------------------
class ZygoteWorker:
    """A worker forked by the zygote, driven as the runner drives a ``subprocess.Popen``: its pid
    (the leader of its own process group), its stdin, ``poll``, ``wait`` and ``returncode``."""

    live: set[ZygoteWorker] = set()  # not yet seen to end: a command that leaves one is told so

    def __init__(self, pid: int, stdin, status_fd: int):
        self.pid, self.stdin, self._status = pid, stdin, status_fd
        self.returncode: int | None = None
        self._buf = b""
        ZygoteWorker.live.add(self)

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self._status], [], [], 0)[0]:
            self._read()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout)
            if select.select([self._status], [], [], left)[0]:
                self._read()
        return self.returncode

    def _read(self) -> None:
        chunk = os.read(self._status, 4096)
        self._buf += chunk
        for line in self._buf.split(b"\n")[:-1]:
            if line.startswith(b"exit "):
                self._ended(int(line[5:]))
        if not chunk and self.returncode is None:
            # the reaper is gone without a word (killed with the zygote, or by the OOM killer): the
            # worker, in a session of its own, may live on; it goes now, and is taken for killed
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._ended(-signal.SIGKILL)

    def _ended(self, code: int) -> None:
        self.returncode = code
        os.close(self._status)
        ZygoteWorker.live.discard(self)


def spawn(socket_path: str, argv: list[str], env: dict[str, str], cwd: Path, log_path: Path,
          response_fd: int) -> ZygoteWorker:
    """Asks the zygote at ``socket_path`` for a worker running ``argv`` (``python -m MODULE
    ARGS``) in ``cwd`` with exactly ``env``; its stdout and stderr append to ``log_path``; it
    writes its replies to ``response_fd`` (passed on, named to it by KG_RESPONSE_FD). Raises
    OSError when there is no zygote to ask."""
    if argv[1:2] != ["-m"]:
        raise ValueError(f"a zygote runs modules (python -m MODULE ARGS), not {argv!r}")
    stdin_r, stdin_w = os.pipe()
    status_r, status_w = os.pipe()
    log = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(30)
            conn.connect(socket_path)
            request = {"python": argv[0], "module": argv[2], "args": argv[3:], "env": env, "cwd": str(cwd)}
            message = json.dumps(request).encode()
            sent = socket.send_fds(conn, [message], [stdin_r, log, response_fd, status_w])
            conn.sendall(message[sent:])
            conn.shutdown(socket.SHUT_WR)
            answer = conn.recv(4096)
        if answer != b"ok":
            raise OSError(f"the zygote at {socket_path} refused a worker: {answer.decode(errors='replace')!r}")
        os.close(status_w)  # before the read below: the reaper's end alone keeps the pipe open
        status_w = -1
        pid = _read_pid(status_r)
    except BaseException:
        # a worker forked before the failure sees its stdin end once it is ready, and exits; the
        # caller gives the worker it starts instead a new reply pipe (runner.start)
        os.close(stdin_w)
        os.close(status_r)
        raise
    finally:
        for fd in (stdin_r, log, status_w):
            if fd >= 0:
                os.close(fd)
    return ZygoteWorker(pid, os.fdopen(stdin_w, "wb"), status_r)


def _read_pid(fd: int) -> int:
    line = b""
    while not line.endswith(b"\n"):
        if not select.select([fd], [], [], 30)[0]:
            raise OSError("the zygote's reaper did not name its worker within 30 s")
        chunk = os.read(fd, 1)
        if not chunk:
            raise OSError("the zygote's reaper ended before naming its worker")
        line += chunk
    return int(line.split()[1])


class Zygote:
    """A zygote started by this process, for the workers it and its children start
    (``KG_WORKER_ZYGOTE`` names its socket); ``stop`` ends it."""

    def __init__(self, folder: Path, env: dict[str, str] | None = None, log_path: Path | None = None,
                 remove_folder: bool = False):
        """ENV: the zygote's whole environment (None: this process's); a worker is forked from it
        only where the variables torch and Triton read at import agree (import_env_differences).
        LOG_PATH: where it says what it refused (default FOLDER/zygote.log). REMOVE_FOLDER: the
        folder goes when the zygote ends, by ``stop`` or on its own once its starter is gone."""
        self.folder, self.socket_path = folder, str(folder / "zygote.sock")
        self.env = dict(os.environ if env is None else env)
        self.log_path = log_path or folder / "zygote.log"
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._remove_folder = remove_folder
        argv = [sys.executable, "-m", "evaluators.zygote", self.socket_path, *(["--remove-folder"] * remove_folder)]
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(argv, env=self.env, cwd=Path(__file__).resolve().parent.parent,
                                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
                                         start_new_session=True)
        self._started = time.monotonic()
        self._ready: bool | None = None
        self._lock = threading.Lock()  # runners ask from several threads (a pool's workers start together)

    def ready(self, timeout_s: float = 60.0) -> bool:
        """Whether the zygote took its imports and accepts requests. Waits for it until TIMEOUT_S
        after its start: one slower than that is not waited for again, and is used once ready."""
        with self._lock:
            if self._ready is None:
                left = max(0.0, self._started + timeout_s - time.monotonic())
                if select.select([self.proc.stdout], [], [], left)[0]:
                    self._ready = self.proc.stdout.readline().strip() == b"ready"  # EOF: it failed to start
            return bool(self._ready)

    @classmethod
    def for_workers(cls, env: dict[str, str], log_path: Path) -> Zygote | None:
        """A zygote for the workers of a command that starts many (a search restarts its worker after
        every crash, and starts its compile-ahead workers together), with ``env``, a worker's
        environment; None where ``env`` names one already (the caller's own, as the test suite's)
        or ``off``. Its socket lies in a folder of its own under the temporary directory (a socket's
        path is at most 107 bytes, a run folder's may be longer); ``stop`` removes it."""
        if env.get(ENV):
            return None
        folder = None
        try:
            folder = Path(tempfile.mkdtemp(prefix="kg-zygote-"))
            return cls(folder, env, log_path, remove_folder=True)
        except OSError as exc:  # a quicker restart lost, nothing else: every worker a new interpreter
            print(f"engine: note: no worker zygote ({exc}); workers start as new interpreters", file=sys.stderr)
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
            return None

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # with it, any reaper still waiting
            except ProcessLookupError:
                pass
        self.proc.wait()
        self.proc.stdout.close()
        if self._remove_folder:
            shutil.rmtree(self.folder, ignore_errors=True)


# -- the zygote's side ---------------------------------------------------------------------------
def serve(socket_path: str, remove_folder: bool = False) -> None:
    """Fork workers on request until the process that started this one is gone; then the socket
    goes (and with REMOVE_FOLDER its folder: a driver killed by SIGKILL or the OOM killer never
    stops its zygote, and would leave both behind)."""
    me = os.getpid()
    try:
        _serve(socket_path)
    finally:
        if os.getpid() == me:  # not a reaper or a worker forked here, on its way out
            try:
                os.unlink(socket_path)
            except OSError:
                pass
            if remove_folder:
                shutil.rmtree(os.path.dirname(socket_path), ignore_errors=True)


def _serve(socket_path: str) -> None:
    starter = os.getppid()
    started_with = dict(os.environ)  # before torch's import adds its own (TORCHINDUCTOR_CACHE_DIR)
    # the path a worker's own entries go before: the interpreter's, less this zygote's folder and
    # PYTHONPATH (a module the runner's checkout lacks must not be found in this one's)
    own = {sys.path[0], *os.environ.get("PYTHONPATH", "").split(os.pathsep)}
    base_path = [p for p in sys.path if p not in own]
    import torch  # noqa: F401 - what every worker would import first
    import torch._dynamo  # noqa: F401 - and what its harness imports before its snapshot
    # a CUDA driver initialised here would be unusable in every worker forked from here; neither
    # import loads it today, but a later torch or Triton that does must cost speed, not workers
    driver_loaded = _cuda_driver_loaded()
    not_dumpable()  # no confined launcher of a candidate's traces this process, nor its forks

    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(socket_path)
    server.listen(16)
    server.settimeout(1.0)
    print("ready", flush=True)
    while os.getppid() == starter:
        _reap()
        try:
            conn, _ = server.accept()
        except TimeoutError:
            continue
        with conn:
            try:
                _answer(conn, started_with, base_path, server, driver_loaded)
            except Exception as exc:  # noqa: BLE001 - one caller's failure is not the next one's
                print(f"zygote: a request failed: {exc!r}", file=sys.stderr, flush=True)


def refusal(request: dict[str, Any], started_with: dict[str, str], after_import: dict[str, str],
            driver_loaded: bool) -> str | None:
    """Why a worker asked for by ``request`` would not be what a new interpreter gives (None: it
    would): another Python, torch imported under other settings, or a CUDA driver loaded here while
    the worker may use a GPU (a driver initialised before a fork leaves the child without one)."""
    if request.get("python") != sys.executable:  # another interpreter: another torch
        return f"asked for {request.get('python')}, this zygote runs {sys.executable}"
    if differ := import_env_differences(request["env"], started_with, after_import):
        return f"imported torch with other values of {', '.join(differ)}"
    if driver_loaded and request["env"].get("CUDA_VISIBLE_DEVICES") != "":
        return "the CUDA driver was loaded with torch here: a worker forked from here could not use a GPU"
    return None


def _cuda_driver_loaded(maps_path: str = "/proc/self/maps") -> bool:
    """Whether the CUDA driver's library is mapped into this process (no CUDA call can have
    initialised it where it is not)."""
    with open(maps_path) as maps:  # address, perms, offset, device, inode, then the path (if any)
        paths = (fields[5].rstrip("\n").removesuffix(" (deleted)") for line in maps
                 if len(fields := line.split(maxsplit=5)) == 6)
        return any(Path(path).name.startswith("libcuda.so") for path in paths)


def _answer(conn: socket.socket, started_with: dict[str, str], base_path: list[str], server: socket.socket,
            driver_loaded: bool) -> None:
    conn.settimeout(30)
    fds: list[int] = []
    try:
        message, fds, _, _ = socket.recv_fds(conn, _MAX_REQUEST, 4)
        while chunk := conn.recv(65536):  # the rest of a long request, to the caller's end
            message += chunk
        request = json.loads(message)
        peer, _, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
        if why := less_privileged(peer):  # a candidate's confined launcher would fork back its privilege
            raise ValueError(f"asked by process {peer}, which has less privilege than this zygote: {why}")
        if len(fds) != 4:
            raise ValueError(f"{len(fds)} descriptors, not 4")
        if why := refusal(request, started_with, dict(os.environ), driver_loaded):
            raise ValueError(why)
        request["base_path"] = base_path
        if os.fork() == 0:
            server.close()
            conn.close()
            _reaper(request, *fds)  # never returns
    except Exception as exc:
        conn.sendall(f"bad request: {exc}".encode())
        raise
    finally:
        for fd in fds:
            os.close(fd)
    conn.sendall(b"ok")


def _reap() -> None:
    """Collect the reapers that have ended (each waits for its worker, then exits)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def _reaper(request: dict[str, Any], stdin_fd: int, log_fd: int, response_fd: int, status_fd: int) -> None:
    try:
        # the worker's pid is named only once it leads a group of its own: a kill of that group
        # before then would miss it, and the caller would wait for a worker it had not stopped
        in_session_r, in_session_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(status_fd)
            os.close(in_session_r)
            _become_worker(request, stdin_fd, log_fd, response_fd, in_session_w)
        for fd in (stdin_fd, log_fd, response_fd, in_session_w):
            os.close(fd)
        os.read(in_session_r, 1)  # its end is closed after setsid (or by its exit)
        os.write(status_fd, f"pid {pid}\n".encode())
        _, status = os.waitpid(pid, 0)
        os.write(status_fd, f"exit {os.waitstatus_to_exitcode(status)}\n".encode())
    finally:
        os._exit(0)


def _become_worker(request: dict[str, Any], stdin_fd: int, log_fd: int, response_fd: int, in_session: int) -> None:
    """The rest of what starting ``python -m MODULE ARGS`` in a new session would have done."""
    code = 1
    try:
        os.setsid()  # its own group, which the runner kills whole
        os.close(in_session)
        # the streams a new interpreter's would be, with PYTHONUNBUFFERED as the runner sets it:
        # its encodings and error handlers (stderr's backslashreplace), written through
        streams = sys.stdin, sys.stdout, sys.stderr
        os.dup2(stdin_fd, 0)
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        os.close(stdin_fd)
        os.close(log_fd)
        sys.stdin, sys.stdout, sys.stderr = (
            io.TextIOWrapper(io.FileIO(fd, mode, closefd=False), encoding=old.encoding, errors=old.errors,
                             write_through=mode == "w", line_buffering=False)
            for fd, mode, old in zip((0, 1, 2), "rww", streams))
        env = dict(request["env"], KG_RESPONSE_FD=str(response_fd))
        os.environ.clear()
        os.environ.update(env)
        os.chdir(request["cwd"])
        # the module and everything of this repository come from the runner's folder and path,
        # as for a new interpreter: the zygote's own package (this file's) is forgotten
        for name in [m for m in sys.modules if m.split(".")[0] in ("evaluators", "engine")]:
            del sys.modules[name]
        sys.path[:] = [request["cwd"], *filter(None, env.get("PYTHONPATH", "").split(os.pathsep)),
                       *request["base_path"]]
        sys.argv = [request["module"], *request["args"]]
        runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, int) and exc.code is not None:
            print(exc.code, file=sys.stderr)
    except KeyboardInterrupt:
        code = -signal.SIGINT  # as the interpreter ends: by the signal itself (below)
    except BaseException:  # noqa: BLE001 - reported as the interpreter would, in the log
        traceback.print_exc()
    finally:
        try:
            atexit._run_exitfuncs()  # what the interpreter runs at its exit (the worker's own)
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            if code == -signal.SIGINT:
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                os.kill(os.getpid(), signal.SIGINT)
            os._exit(code)


if __name__ == "__main__":
    serve(sys.argv[1], remove_folder="--remove-folder" in sys.argv[2:])
