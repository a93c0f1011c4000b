"""What keeps a candidate's isolated launcher (evaluators/launch_recorder.py) off the processes
that check and record it. No torch here: the driver, which never imports it, uses this too.

The recorder runs as the same user as the worker, the driver and the zygote where it cannot run as
another (see ``launch_recorder._confine``). Such a process may trace, and read or write the memory
of, any dumpable process of its user; a process that is not dumpable needs CAP_SYS_PTRACE for
that, which the recorder has given up. And a zygote forks whatever it is asked for with its own
privilege: it must not fork for a process that has less.
"""

from __future__ import annotations

import ctypes
import os

ENV = "KG_ISOLATE_LAUNCHER"  # "1": a Triton candidate's launcher runs in a process of its own
_PR_SET_DUMPABLE = 4
_PR_SET_CHILD_SUBREAPER = 36


def isolation_wanted(guards: dict) -> bool:
    """Whether a request's evaluation isolates its launcher: its ``isolate_launcher`` guard, else
    this process's environment."""
    if "isolate_launcher" in guards:
        return bool(guards["isolate_launcher"])
    return os.environ.get(ENV, "") == "1"


def not_dumpable() -> None:
    """This process no longer dumpable (no core dumps either): a process without CAP_SYS_PTRACE
    may then neither trace it nor read or write its memory through /proc, even as its user."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)


def adopt_orphans() -> None:
    """This process the parent of every orphan among its descendants (a child subreaper): what a
    recorder starts in a session of its own and leaves behind becomes this process's child, which
    it can find and kill (``isolated_launcher._kill_escaped``)."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def less_privileged(pid: int) -> str | None:
    """Why process ``pid`` has less privilege than this one (a fork made for it would give it
    more), or None: another user, no_new_privs where this has not, or an effective capability
    this process has and it lacks. A process whose status cannot be read is taken for less."""
    try:
        theirs, mine = _status(pid), _status(os.getpid())
    except OSError as exc:
        return f"its status cannot be read ({exc})"
    if theirs.get("Uid", "").split()[:1] != mine.get("Uid", "").split()[:1]:
        return f"it runs as another user ({theirs.get('Uid', '?').split()[:1]})"
    if theirs.get("NoNewPrivs") == "1" and mine.get("NoNewPrivs") != "1":
        return "it gave up privilege (no_new_privs)"
    cap_theirs, cap_mine = int(theirs.get("CapEff", "0"), 16), int(mine.get("CapEff", "0"), 16)
    if cap_mine & ~cap_theirs:
        return f"it lacks capabilities this process has ({cap_mine & ~cap_theirs:#x})"
    return None


def _status(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status") as f:
        return dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
