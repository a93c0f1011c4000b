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
        if len(versions) != 1 or not versions <= set(_UPGRADES) | {SCHEMA_VERSION}:
            raise UserError(f"{p}: schema version {sorted(map(str, versions))}, this engine reads "
                            f"{sorted(set(_UPGRADES) | {SCHEMA_VERSION})}")
        (version,) = versions
        if version != SCHEMA_VERSION:
            t = _UPGRADES[version](t)
        tables.append(t.select(SCHEMA.names).cast(SCHEMA))
    return pa.concat_tables(tables).sort_by("attempt")


def _upgrade_v1(t: pa.Table) -> pa.Table:
    """v1 had no compiler resource figures: add them as nulls."""
    for name in ("registers", "shared_bytes", "stack_bytes", "spill_bytes"):
        t = t.append_column(SCHEMA.field(name), pa.nulls(t.num_rows, SCHEMA.field(name).type))
    return t.set_column(t.column_names.index("schema_version"), "schema_version",
                        pa.array([SCHEMA_VERSION] * t.num_rows, pa.int32()))


_UPGRADES = {1: _upgrade_v1}


def read_records(run_dir: Path) -> list[dict[str, Any]]:
    return read_table(run_dir).to_pylist()
