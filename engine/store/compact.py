"""Merge a run's Parquet parts into one, without a moment where a reader could count a row twice.

An evolve run writes one part per attempt: hundreds of small files, awkward to copy off a
machine or to archive. ``compact`` reads every part (upgrading old schema versions), writes
them as one part, checks it, and swaps it in: the old parts first move into a hidden folder
that names the part replacing them, then the new part takes its place, then the folder goes.
A crash between those steps leaves the rows in the hidden folder, never in two visible parts;
the next ``compact`` (or ``read_table``, which refuses the run until then) puts them back.
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow.parquet as pq

from engine.errors import UserError
from engine.store.reader import COMPACTING as PENDING  # holds the replaced parts while the swap is under way
from engine.store.reader import read_table
from engine.store.writer import write_part_file

TARGET = "target"        # in PENDING: the name of the part that replaces them


def compact(run_dir: Path) -> tuple[int, int, Path | None]:
    """(parts merged, rows, the part holding them); a run of one part or none is left alone."""
    recover(run_dir)
    parts = sorted(run_dir.glob("part-*.parquet"))
    if len(parts) <= 1:
        return len(parts), (read_table(run_dir).num_rows if parts else 0), parts[0] if parts else None
    table = read_table(run_dir)
    target = run_dir / f"part-{1 + max(int(p.stem.split('-')[1]) for p in parts):06d}.parquet"
    tmp = run_dir / (target.name + ".tmp")
    write_part_file(table, tmp)
    try:
        back = pq.read_table(tmp, page_checksum_verification=True)
    except OSError:  # a page whose checksum fails: the disk changed what was written
        back = None
    if back is None or back.num_rows != table.num_rows or (
            back.column("attempt").to_pylist() != table.column("attempt").to_pylist()):
        tmp.unlink()
        raise UserError(f"{run_dir}: the merged part does not read back as the {table.num_rows} rows it was "
                        f"written from; the run is unchanged")
    pending = run_dir / PENDING
    pending.mkdir()
    (pending / TARGET).write_text(target.name + "\n")
    for p in parts:
        os.replace(p, pending / p.name)
    os.replace(tmp, target)
    _clear(pending)
    return len(parts), table.num_rows, target


def recover(run_dir: Path) -> None:
    """Finish or undo a compaction that stopped half-way."""
    pending = run_dir / PENDING
    if not pending.is_dir():
        return
    target = run_dir / (pending / TARGET).read_text().strip() if (pending / TARGET).exists() else None
    if target is not None and target.exists():
        _clear(pending)  # the merged part is in place: the old ones are redundant
        return
    for p in sorted(pending.glob("part-*.parquet")):  # it never arrived: the old parts come back
        os.replace(p, run_dir / p.name)
    if target is not None:
        (run_dir / (target.name + ".tmp")).unlink(missing_ok=True)
    _clear(pending)


def _clear(pending: Path) -> None:
    """The hidden folder removed, its name of the merged part last: a crash part-way then leaves
    that name beside whatever old parts remain, and recover() finishes the removal. (A removal in
    directory order could take the name first; recover() would then bring the old parts back
    beside the merged one, every row twice.)"""
    for p in pending.iterdir():
        if p.name != TARGET:
            p.unlink()
    (pending / TARGET).unlink(missing_ok=True)
    pending.rmdir()
