"""`python -m engine` run two ways: in a process of its own (`run_cli_process`), or answered by
`engine.cli.main` in the test process (`run_cli`), which skips a new interpreter's second or so of
importing torch. tests/engine/test_cli_errors.py checks that both give the same answer."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import subprocess
import sys
import threading
import warnings
from collections.abc import Mapping
from pathlib import Path

from engine.cli import main as engine_main

REPO = Path(__file__).resolve().parent.parent


def run_cli_process(*args: str | Path, cwd: Path = REPO, env: Mapping[str, str] | None = None,
                    ) -> subprocess.CompletedProcess:
    """ENV: the whole environment of the command (as subprocess's env=); None: this process's."""
    return subprocess.run([sys.executable, "-m", "engine", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60, check=False)


def run_cli(*args: str | Path, cwd: Path = REPO, env: Mapping[str, str] | None = None,
            ) -> subprocess.CompletedProcess:
    """`python -m engine ARGS` answered by `engine.cli.main` in this process, as run_cli_process
    would answer it (test_in_process_cli_answers_as_the_real_command checks): a new interpreter
    costs about a second, mostly importing torch. An exception escaping main fails the test. ENV
    as run_cli_process's, in place for the call."""
    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    saved, here, on_sigterm = dict(os.environ), os.getcwd(), signal.getsignal(signal.SIGTERM)
    threads, had_children = set(threading.enumerate()), _has_children()
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    os.environ.setdefault("COLUMNS", "80")  # argparse wraps help to the terminal; a child's stdout is a pipe
    try:
        os.chdir(cwd)
        with (contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _logging_to(err),
              warnings.catch_warnings()):
            _interpreter_warning_filters()
            warnings.showwarning = _warning_to_stderr
            try:
                status = engine_main(argv)
            except SystemExit as exc:
                status = exc.code
            except BaseException as exc:
                if err.getvalue():
                    exc.add_note(f"stderr before it:\n{err.getvalue()}")
                raise
            if status is not None and not isinstance(status, int):
                print(status, file=sys.stderr)  # as the interpreter reports SystemExit("text")
                status = 1
    finally:
        os.chdir(here)
        signal.signal(signal.SIGTERM, on_sigterm)
        os.environ.clear()
        os.environ.update(saved)
    left = set(threading.enumerate()) - threads
    assert not left, f"{argv} left threads running: {left}"
    assert had_children or not _has_children(), f"{argv} left a child process"
    return subprocess.CompletedProcess(argv, status or 0, out.getvalue(), err.getvalue())


# the test session's own helpers (tests/nvcc_prebuild.py's builder, the worker zygote): children of
# this process that no command started
SESSION_HELPERS: set[int] = set()


def _has_children() -> bool:
    """Whether a process this one started, other than the session's helpers, has not been reaped
    (running or exited), or a worker forked for it by the zygote has not been seen to end."""
    from evaluators.zygote import ZygoteWorker

    if ZygoteWorker.live:
        return True
    if not Path("/proc/self/task").is_dir():  # no /proc (not Linux): any child counts, helpers too
        try:  # WNOWAIT: an exited child stays for its Popen to reap
            os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return False
        return True
    children = set()
    for task in os.listdir("/proc/self/task"):  # each thread's own children
        try:
            children.update(int(pid) for pid in Path(f"/proc/self/task/{task}/children").read_text().split())
        except OSError:  # a thread that has ended since the listing
            pass
    return bool(children - SESSION_HELPERS)


@contextlib.contextmanager
def _logging_to(stream: io.StringIO):
    """Plain stream handlers (a library's own, as optuna's) write to `stream` meanwhile: each holds
    the sys.stderr of when it was made; pytest's handlers are subclasses and keep theirs."""
    loggers = [logging.getLogger(), *(x for x in logging.root.manager.loggerDict.values()
                                      if isinstance(x, logging.Logger))]
    handlers = {h for x in loggers for h in x.handlers if type(h) is logging.StreamHandler}
    before = {h: h.stream for h in handlers}
    for h in handlers:
        h.setStream(stream)
    try:
        yield
    finally:
        for h, old in before.items():
            h.setStream(old)


def _interpreter_warning_filters() -> None:
    """A fresh interpreter's filters (pytest shows every DeprecationWarning)."""
    warnings.resetwarnings()
    for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
        warnings.simplefilter("ignore", category, append=True)
    warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")


def _warning_to_stderr(message, category, filename, lineno, file=None, line=None) -> None:
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))
