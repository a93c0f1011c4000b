"""Append-only writer: every batch of records becomes a new Parquet part; nothing is rewritten."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Any, Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from engine.errors import UserError
from engine.store.schema import SCHEMA, SCHEMA_VERSION

# Each data page carries a CRC of its bytes (the reader checks it): a bit flipped on disk in a
# page of numbers still parses, and would read back as another time or error, silently.
PAGE_CHECKSUMS = {"write_page_checksum": True}


class ResultsWriter:
    def __init__(self, run_dir: Path, run_id: str):
        self.run_dir = run_dir
        self.run_id = run_id
        run_dir.mkdir(parents=True, exist_ok=True)
        self._next_part = 1 + max((int(p.stem.split("-")[1]) for p in run_dir.glob("part-*.parquet")),
                                  default=-1)

    def append(self, rows: Iterable[dict[str, Any]]) -> Path:
        rows = [self._complete(r) for r in rows]
        table = pa.Table.from_pylist(rows, schema=SCHEMA)
        path = self.run_dir / f"part-{self._next_part:06d}.parquet"
        tmp = path.with_suffix(".parquet.tmp")
        try:
            pq.write_table(table, tmp, **PAGE_CHECKSUMS)
            os.replace(tmp, path)  # a reader never sees half a part
        except OSError as exc:  # the folder deleted, made read-only or full mid-run: the run stops here
            raise UserError(f"{path}: cannot write the run's next row, the run stops: {exc.strerror or exc}") from None
        self._next_part += 1
        return path

    def _complete(self, row: dict[str, Any]) -> dict[str, Any]:
        full = {name: None for name in SCHEMA.names}
        unknown = set(row) - set(full)
        if unknown:
            raise KeyError(f"fields not in the results schema: {sorted(unknown)}")
        full.update(row)
        full["schema_version"] = SCHEMA_VERSION
        full["run_id"] = self.run_id
        full["created_at"] = full["created_at"] or dt.datetime.now(dt.timezone.utc)
        return full


def write_part_file(table: pa.Table, path: Path) -> None:
    """One table as a Parquet file at ``path`` (the compaction's merged part, before its swap)."""
    pq.write_table(table.cast(SCHEMA), path, **PAGE_CHECKSUMS)
