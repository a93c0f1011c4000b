"""The suite's cubins built ahead, on the core the tests leave idle.

Most tests keep one core busy (a driver waiting on one worker), while the modules that build the
real CUDA template kept both busy with nvcc for about four minutes of a 19-minute run. A module
names the sources it will build (``NVCC_SOURCES``, a function returning them); once the tests are
collected, one process at the lowest priority builds them all, in the order the modules run, into
one cache for the session (the ``nvcc_cache`` fixture), and the module's own builds find them there.
A build still under way when the module asks for it is waited for, not started again
(``compile_cuda``'s lock), and whatever the background has not reached the module builds itself:
the background only ever saves time, and a module run alone builds as before.

Run as ``python -m tests.nvcc_prebuild CACHE LIST``: LIST names one source file a line.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def wanted_sources(items) -> list[str]:
    """The sources the collected modules declare, each once, in the order the modules run. A
    module whose sources cannot be made now (its template moved) adds none: its own fixture then
    meets the fault, in a test."""
    runs: dict = {}  # module -> whether any of its tests runs (dicts keep the modules' order)
    for item in items:
        module = getattr(item, "module", None)
        if module is not None:
            runs[module] = runs.get(module, False) or item.get_closest_marker("skip") is None
    sources: dict[str, None] = {}
    for module, running in runs.items():
        declared = getattr(module, "NVCC_SOURCES", None)
        if declared is None or not running:
            continue
        try:
            for source in declared():
                sources.setdefault(source, None)
        except Exception:  # noqa: BLE001 - the module's test reports it
            continue
    return list(sources)


class Prebuild:
    """The background builder of one session: started with the sources, stopped at the end."""

    def __init__(self, cache: Path, sources: list[str]):
        self.cache = cache
        self.proc: subprocess.Popen | None = None
        if not sources or shutil.which("nvcc") is None:
            return
        folder = cache / ".prebuild"
        folder.mkdir(parents=True, exist_ok=True)
        names = []
        for i, source in enumerate(sources):
            (folder / f"{i:03d}.cu").write_text(source)
            names.append(str(folder / f"{i:03d}.cu"))
        (folder / "list").write_text("\n".join(names) + "\n")
        with open(folder / "log", "wb") as log:
            # at the lowest priority: the tests' own processes (a worker timing a hang, a driver's
            # deadline) come first
            self.proc = subprocess.Popen([sys.executable, "-m", "tests.nvcc_prebuild", str(cache),
                                          str(folder / "list")],
                                         cwd=REPO, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                         start_new_session=True, preexec_fn=_lowest_priority)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # nvcc with it
            except ProcessLookupError:
                pass
        if self.proc is not None:
            self.proc.wait()


def _lowest_priority() -> None:
    """Nice 19, for this process and for its session's share. The kernel shares the CPU between
    sessions (autogroups) before nice values count within one: at nice 19 in a session of its own,
    which is at nice 0, the builds still took a core from the tests (the suite's first tests, which
    run beside them, took two to four times as long)."""
    os.nice(19)
    try:
        with open("/proc/self/autogroup", "w") as group:
            group.write("19")
    except OSError:  # no autogroups here: nice alone then counts
        pass


def main(cache: str, listing: str) -> None:
    from evaluators.cuda_compile import compile_cuda

    parent = os.getppid()
    for name in Path(listing).read_text().split():
        if os.getppid() != parent:  # the test session is gone
            return
        compile_cuda(Path(name).read_text(), Path(cache))


if __name__ == "__main__":
    main(*sys.argv[1:])
