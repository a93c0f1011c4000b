"""Read a run's Parquet parts back as records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from engine.errors import UserError
from engine.store.schema import SCHEMA, SCHEMA_VERSION


def read_table(run_dir: Path) -> pa.Table:
    parts = sorted(run_dir.glob("part-*.parquet"))
    if not parts:
        return SCHEMA.empty_table()
    tables = []
    for p in parts:
        try:
            t = pq.read_table(p)
        except (pa.ArrowInvalid, OSError) as exc:
            raise UserError(f"{p}: unreadable Parquet part: {exc}") from None
        versions = set(t.column("schema_version").to_pylist()) if "schema_version" in t.column_names else {None}
        if versions != {SCHEMA_VERSION}:
            raise UserError(f"{p}: schema version {sorted(map(str, versions))}, this engine reads {SCHEMA_VERSION}")
        tables.append(t.cast(SCHEMA))
    return pa.concat_tables(tables).sort_by("attempt")


def read_records(run_dir: Path) -> list[dict[str, Any]]:
    return read_table(run_dir).to_pylist()
