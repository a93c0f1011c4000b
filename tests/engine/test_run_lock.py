"""The run's lock guards the folder it was taken in, not a file unlinked from under it."""

from __future__ import annotations

import fcntl
import shutil
import types

import pytest

import engine.run_lock as run_lock_module
from engine.errors import UserError
from engine.run_lock import LOCK_FILE, run_lock


def flock_after(monkeypatch, what_another_process_does) -> None:
    """run_lock's flock runs WHAT_ANOTHER_PROCESS_DOES first: the window between its open and its lock."""
    def flock(fd, operation):
        what_another_process_does()
        fcntl.flock(fd, operation)

    monkeypatch.setattr(run_lock_module, "fcntl",
                        types.SimpleNamespace(flock=flock, LOCK_EX=fcntl.LOCK_EX, LOCK_NB=fcntl.LOCK_NB))


def test_a_folder_removed_and_made_again_while_its_lock_is_taken_is_refused(tmp_path, monkeypatch):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    # delete the folder and make it again (a new run taking it): the open file is no one's lock file
    flock_after(monkeypatch, lambda: (shutil.rmtree(run_dir), run_dir.mkdir()))
    entered = False
    with pytest.raises(UserError, match="removed or replaced while this process took its lock") as refused, \
            run_lock(run_dir):
        entered = True
    assert not entered and str(run_dir) in str(refused.value)
    monkeypatch.undo()
    with run_lock(run_dir):  # the folder's own lock file is free for the run that made it
        assert (run_dir / LOCK_FILE).is_file()


def test_a_lock_file_deleted_after_the_open_is_refused(tmp_path, monkeypatch):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    flock_after(monkeypatch, (run_dir / LOCK_FILE).unlink)
    with pytest.raises(UserError, match="removed or replaced"), run_lock(run_dir):
        pass


def test_the_lock_is_taken_and_given_back(tmp_path):
    # a second open file description: flock refuses it as it would another process's
    with run_lock(tmp_path), pytest.raises(UserError, match="another engine process is writing this run"), \
            run_lock(tmp_path):
        pass
    with run_lock(tmp_path):
        pass
