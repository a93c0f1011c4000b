"""One writer per run folder: evolve and compact hold an exclusive lock on ``<run>/.lock``.

Two processes appending to one run would number their Parquet parts from the same counter and
overwrite each other's; a compaction under a running evolve would race its next part. The
lock is an advisory ``flock``: the kernel drops it when the holder exits, however it exits.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from engine.errors import UserError

LOCK_FILE = ".lock"


@contextlib.contextmanager
def run_lock(run_dir: Path) -> Iterator[None]:
    path = run_dir / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:  # a read-only run folder (a copy, an archive): nothing may write it
        raise UserError(f"{path}: cannot take the run's lock, so cannot write the run: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UserError(f"{run_dir}: another engine process is writing this run (it holds {path})") from None
        if not _is_the_file_at(fd, path):  # the folder went between the open and the lock
            raise UserError(f"{run_dir}: the run folder was removed or replaced while this process took its lock "
                            f"({path}); nothing was written, run the command again")
        yield
    finally:
        os.close(fd)


def _is_the_file_at(fd: int, path: Path) -> bool:
    """Whether ``path`` still names the file ``fd`` locks. A lock on a file unlinked since (its
    folder deleted, then made again by another run) guards nothing: that other run takes the lock
    of the new file, and both would write the folder."""
    try:
        named = os.stat(path)
    except OSError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)
