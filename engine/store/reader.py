"""Read a run's Parquet parts back as records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from engine.errors import UserError
from engine.store.schema import SCHEMA, SCHEMA_VERSION


# Where `engine compact` parks the parts it replaces (engine.store.compact); while it exists the
# run's rows are not all in its visible parts, so nothing reads the run.
COMPACTING = ".compacting"


def read_table(run_dir: Path | str) -> pa.Table:
    run_dir = Path(run_dir)  # scripts pass the folder as they got it, a string
    if (run_dir / COMPACTING).is_dir():
        raise UserError(f"{run_dir}: a compaction stopped half-way; `python -m engine compact {run_dir}` "
                        f"finishes it (no row is lost)")
    parts = sorted(run_dir.glob("part-*.parquet"))
    if not parts:
        return SCHEMA.empty_table()
    tables = []
    for p in parts:
        try:
            t = pq.read_table(p, page_checksum_verification=True)  # parts written before checksums have none to check
            # damaged bytes may still parse: a column name or a value that is not UTF-8 fails here,
            # not as a traceback wherever it is read
            t.validate(full=True)
            names = t.column_names
        except (pa.ArrowInvalid, OSError, UnicodeDecodeError) as exc:
            reason = " ".join(str(exc).split())  # Arrow's own message may run over several lines
            raise UserError(f"{p}: unreadable Parquet part: {reason}") from None
        versions = set(t.column("schema_version").to_pylist()) if "schema_version" in names else {None}
        if len(versions) != 1 or not versions <= set(_UPGRADES) | {SCHEMA_VERSION}:
            raise UserError(f"{p}: schema version {sorted(map(str, versions))}, this engine reads "
                            f"{sorted(set(_UPGRADES) | {SCHEMA_VERSION})}")
        (version,) = versions
        try:
            while version != SCHEMA_VERSION:
                t, version = _UPGRADES[version](t), version + 1
            tables.append(t.select(SCHEMA.names).cast(SCHEMA))
        except KeyError:  # a column its version has is not there (a foreign or hand-made file)
            missing = [n for n in SCHEMA.names if n not in t.column_names]
            raise UserError(f"{p}: lacks the columns {missing} of schema version {version}") from None
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, TypeError) as exc:
            raise UserError(f"{p}: columns of other types than schema version {version}'s: {exc}") from None
    return pa.concat_tables(tables).sort_by("attempt")


def _add_nulls(t: pa.Table, names: tuple[str, ...], version: int) -> pa.Table:
    for name in names:
        t = t.append_column(SCHEMA.field(name), pa.nulls(t.num_rows, SCHEMA.field(name).type))
    return t.set_column(t.column_names.index("schema_version"), "schema_version",
                        pa.array([version] * t.num_rows, pa.int32()))


# version -> the step to the next version
_UPGRADES = {
    1: lambda t: _add_nulls(t, ("registers", "shared_bytes", "stack_bytes", "spill_bytes"), 2),  # resources
    2: lambda t: _add_nulls(t, ("device_index",), 3),  # which GPU of the host
    3: lambda t: _add_nulls(t, ("compiler_notes",), 4),  # the compiler's warnings and advisories
    4: lambda t: _add_nulls(t, ("code_json",), 5),  # the code regions an LLM rewrote
    5: lambda t: _add_nulls(t, ("e2e", "e2e_s"), 6),  # the kernel inside the decode layer
    6: lambda t: _add_nulls(t, ("code_bytes",), 7),  # the size of the machine code
    7: lambda t: _add_nulls(t, ("build_sm_counts",), 8),  # the GPUs a genome was built for
}


def read_records(run_dir: Path | str) -> list[dict[str, Any]]:
    return read_table(run_dir).to_pylist()
