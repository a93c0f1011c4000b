"""`engine compact`: a run's Parquet parts merged into one, on real Parquet files, real
subprocesses of the CLI, and the crash points of the swap."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import UserError
from engine.store.compact import PENDING, TARGET, compact, recover
from engine.store.reader import read_records
from engine.store.writer import ResultsWriter
from tests.engine.test_results_store import flip_a_bit_of, row

REPO = Path(__file__).resolve().parents[2]


def make_run(tmp_path: Path, attempts: int = 7) -> Path:
    run = tmp_path / "run"
    writer = ResultsWriter(run, "r")
    for a in range(attempts):
        writer.append([row(a, "ok" if a % 3 else "incorrect")])
    (run / "run.json").write_text(json.dumps({"run_id": "r"}) + "\n")
    return run


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_compact_merges_every_part_into_one_with_every_row_unchanged(tmp_path):
    run = make_run(tmp_path)
    before = read_records(run)
    done = cli("compact", run)
    assert done.returncode == 0, done.stderr
    parts = sorted(run.glob("part-*.parquet"))
    assert [p.name for p in parts] == ["part-000007.parquet"]  # numbered after the last, never reused
    assert "7 parts merged into part-000007.parquet (7 rows)" in done.stdout
    assert read_records(run) == before
    assert not (run / PENDING).exists()


def test_the_merged_part_keeps_its_pages_checksummed(tmp_path):
    run = make_run(tmp_path, attempts=2)
    # a compile time between the others' least (1.5) and greatest: no statistic holds a copy of it
    ResultsWriter(run, "r").append([{**row(2), "compile_s": 2.345678}, {**row(3), "compile_s": 9.0}])
    _, _, merged = compact(run)
    flip_a_bit_of(merged, 2.345678)
    with pytest.raises(UserError, match="unreadable Parquet part: .*CRC checksum verification failed"):
        read_records(run)


def test_a_resumed_writer_numbers_its_parts_after_the_merged_one(tmp_path):
    run = make_run(tmp_path, 3)
    compact(run)
    added = ResultsWriter(run, "r").append([row(3)])
    assert added.name == "part-000004.parquet"
    assert [r["attempt"] for r in read_records(run)] == [0, 1, 2, 3]


def test_compacting_a_run_of_one_part_changes_nothing(tmp_path):
    run = make_run(tmp_path, 1)
    part = next(run.glob("part-*.parquet"))
    data = part.read_bytes()
    assert compact(run) == (1, 1, part)
    assert part.read_bytes() == data


def test_a_swap_stopped_before_the_merged_part_arrived_is_undone(tmp_path):
    # the crash point: old parts moved aside, the merged part not yet in place
    run = make_run(tmp_path, 4)
    before = read_records(run)
    pending = run / PENDING
    pending.mkdir()
    (pending / TARGET).write_text("part-000004.parquet\n")
    for p in run.glob("part-*.parquet"):
        os.replace(p, pending / p.name)
    with pytest.raises(UserError, match="compaction stopped half-way"):
        read_records(run)  # no reader counts on a run in that state
    recover(run)
    assert read_records(run) == before and not pending.exists()


def test_a_swap_stopped_after_the_merged_part_arrived_is_finished(tmp_path):
    run = make_run(tmp_path, 4)
    before = read_records(run)
    compact(run)
    merged = next(run.glob("part-*.parquet"))
    pending = run / PENDING  # as if the old parts' folder had not been removed yet
    pending.mkdir()
    (pending / TARGET).write_text(merged.name + "\n")
    ResultsWriter(pending, "r").append([row(0)])  # a stale copy of an old part
    recover(run)
    assert read_records(run) == before and not pending.exists()


def test_compact_refuses_a_folder_that_is_not_a_run(tmp_path):
    done = cli("compact", tmp_path)
    assert done.returncode == 2 and "not a run folder (no run.json)" in done.stderr
    assert done.stderr.count("\n") == 1


def test_compact_refuses_a_run_another_process_is_writing(tmp_path):
    run = make_run(tmp_path, 3)
    fd = os.open(run / ".lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as a running evolve holds it
        done = cli("compact", run)
    finally:
        os.close(fd)
    assert done.returncode == 2 and "another engine process is writing this run" in done.stderr
    assert len(list(run.glob("part-*.parquet"))) == 3  # untouched


class Crash(BaseException):
    """The process killed at one step of the swap (BaseException: nothing in compact catches it)."""


@pytest.mark.parametrize("order", [sorted, lambda names: sorted(names, reverse=True)], ids=["sorted", "reversed"])
def test_a_compaction_killed_at_any_step_of_its_swap_loses_no_row_and_doubles_none(tmp_path, monkeypatch, order):
    """Each file-system step of the swap (a part moved aside, the merged part moved in, a file of
    the hidden folder removed, the folder itself) in turn is where the process dies; the next
    compact's recovery then leaves every row once. The hidden folder is listed in either order:
    which file a directory listing gives first is the file system's choice."""
    real = {name: getattr(os, name) for name in ("replace", "unlink", "rmdir")}
    real_iterdir = Path.iterdir
    steps = 0
    while True:
        run = make_run(tmp_path / f"crash{steps}", 5)
        before = read_records(run)
        done = [0]

        def step(name, done=done, steps=steps):
            def counted(*args, **kwargs):
                if done[0] == steps:
                    raise Crash(f"killed before {name} {args}")
                done[0] += 1
                return real[name](*args, **kwargs)
            return counted

        for name in real:
            monkeypatch.setattr(os, name, step(name))
        monkeypatch.setattr(Path, "iterdir", lambda self: iter(order(list(real_iterdir(self)))))
        try:
            compact(run)
            finished = True
        except Crash:
            finished = False
        finally:
            for name, fn in real.items():
                monkeypatch.setattr(os, name, fn)
        compact(run)  # recovers, then merges what is there
        after = read_records(run)
        assert after == before, f"killed at step {steps}: {len(after)} rows for {len(before)}"
        assert not (run / PENDING).exists()
        if finished:
            break
        steps += 1
    assert steps > 5 + 3  # every part moved aside and removed, the merged part moved in, the rest
