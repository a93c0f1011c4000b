"""Parquet parts: versioned schema, append-only, round trip."""

from __future__ import annotations

import datetime as dt
import struct

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from engine.errors import UserError
from engine.store.reader import read_records
from engine.store.schema import SCHEMA, SCHEMA_VERSION
from engine.store.writer import ResultsWriter


def row(attempt: int, status: str = "ok") -> dict:
    return {
        "attempt": attempt, "kind": "genome", "genome_id": f"g{attempt}", "template": "t.j2",
        "template_hash": "abc", "problem": "sparse_mla_decode", "language": "triton",
        "params_json": '{"A":1}', "parent_ids": ["p1", "p2"], "operator": "mutation", "strategy": "ga",
        "status": status, "stage": None if status == "ok" else "verify",
        "error": None if status == "ok" else "out: 3 of 9 elements out of tolerance",
        "input_seed": 12345, "compile_s": 1.5, "verify_s": 0.25, "bench_s": 2.0, "eval_s": 4.0,
        "device_index": 1, "compiler_notes": ["ptxas C7520: wgmma.mma_async instructions are serialized"],
        "build_sm_counts": [114, 132],
        "cpu_row": False, "verify": [{"shape": "s", "out_rel_l2": 0.003, "lse_rel_l2": 1e-7}],
        "workloads": [{"name": "b1_ctx4k", "batch": 1, "heads": 128, "topk": 2048, "context": 4096,
                       "median_us": 17.0, "iqr_us": 0.5, "min_us": 16.5, "n_samples": 30, "tflops": 33.6,
                       "gbps": 140.0, "roofline_floor_us": 0.72, "roofline_frac": 0.04}],
        "score": 0.93, "baseline": "default genome x",
        "env": {"device_kind": "cuda", "gpu": "NVIDIA H200", "driver": "580", "cuda": "13.0",
                "torch": "2.11", "triton": "3.6.0", "python": "3.12", "host": "vm"},
    }


def test_records_round_trip_through_parquet_with_every_field(tmp_path):
    writer = ResultsWriter(tmp_path, "run-1")
    written = [row(0), row(1, "incorrect")]
    writer.append([written[0]])
    writer.append([written[1]])
    back = read_records(tmp_path)
    assert len(back) == 2
    for w, b in zip(written, back):
        for key, value in w.items():
            assert b[key] == value, key
        assert b["schema_version"] == SCHEMA_VERSION and b["run_id"] == "run-1"
        assert isinstance(b["created_at"], dt.datetime)


def test_a_run_folder_given_as_a_string_reads_as_its_path(tmp_path):
    ResultsWriter(tmp_path, "r").append([row(0), row(1, "incorrect")])
    assert [r["status"] for r in read_records(str(tmp_path))] == ["ok", "incorrect"]


def test_each_append_is_a_new_part_and_earlier_parts_are_never_rewritten(tmp_path):
    writer = ResultsWriter(tmp_path, "r")
    first = writer.append([row(0)])
    before = first.read_bytes()
    second = ResultsWriter(tmp_path, "r").append([row(1)])  # a resumed writer continues numbering
    assert first != second and first.read_bytes() == before
    assert [p.name for p in sorted(tmp_path.glob("part-*.parquet"))] == ["part-000000.parquet", "part-000001.parquet"]


def test_the_file_schema_is_the_declared_one(tmp_path):
    path = ResultsWriter(tmp_path, "r").append([row(0)])
    assert pq.read_schema(path).remove_metadata().equals(SCHEMA)


def test_unknown_fields_are_refused(tmp_path):
    with pytest.raises(KeyError, match="speedup"):
        ResultsWriter(tmp_path, "r").append([dict(row(0), speedup=3.0)])


def test_a_part_of_another_schema_version_is_refused_by_name(tmp_path):
    path = ResultsWriter(tmp_path, "r").append([row(0)])
    table = pq.read_table(path)
    table = table.set_column(0, "schema_version", [[SCHEMA_VERSION + 1]])
    pq.write_table(table, path)
    with pytest.raises(UserError, match=f"{path.name}.*schema version"):
        read_records(tmp_path)


def test_a_part_of_this_version_missing_a_column_or_with_a_column_of_another_type_is_named(tmp_path):
    import pyarrow as pa

    path = ResultsWriter(tmp_path, "r").append([row(0)])
    table = pq.read_table(path)
    pq.write_table(table.drop_columns(["run_id", "score"]), path)
    with pytest.raises(UserError, match=rf"{path.name}: lacks the columns \['run_id', 'score'\]"):
        read_records(tmp_path)
    at = table.column_names.index("score")
    pq.write_table(table.set_column(at, "score", pa.array(["fast"])), path)
    with pytest.raises(UserError, match=f"{path.name}: columns of other types"):
        read_records(tmp_path)


def test_older_runs_are_read_with_the_later_fields_as_nulls():
    from pathlib import Path

    archived = Path(__file__).resolve().parents[2] / "docs" / "runs" / "h200-triton-ga150-20261130"
    assert pq.read_table(archived / "part-000000.parquet").column("schema_version")[0].as_py() == 1
    records = read_records(archived)
    assert len(records) == 151 and all(r["schema_version"] == SCHEMA_VERSION for r in records)
    assert all(r["registers"] is None and r["spill_bytes"] is None for r in records)
    assert all(r["device_index"] is None and r["compiler_notes"] is None for r in records)
    assert records[1]["workloads"][0]["median_us"] > 0



# the fields each schema version added (engine/store/schema.py)
ADDED = {3: ["device_index"], 4: ["compiler_notes"], 5: ["code_json"], 6: ["e2e", "e2e_s"], 7: ["code_bytes"],
         8: ["build_sm_counts"]}


def as_version(path, version: int) -> None:
    """Rewrite a part written now as an older version wrote it: without the later fields."""
    later = [name for v, names in ADDED.items() if v > version for name in names]
    table = pq.read_table(path).drop_columns(later)
    pq.write_table(table.set_column(0, "schema_version", [[version]]), path)


def test_a_version_2_part_is_read_with_device_index_null(tmp_path):
    ResultsWriter(tmp_path, "run-1").append([row(0)])
    (path,) = tmp_path.glob("part-*.parquet")
    as_version(path, 2)
    (back,) = read_records(tmp_path)
    assert back["device_index"] is None and back["compiler_notes"] is None
    assert back["registers"] is None and back["score"] == 0.93


def test_a_version_4_part_is_read_with_code_json_null(tmp_path):
    ResultsWriter(tmp_path, "run-1").append([row(0) | {"code_json": '{"r":"x"}'}])
    (path,) = tmp_path.glob("part-*.parquet")
    assert read_records(tmp_path)[0]["code_json"] == '{"r":"x"}'
    as_version(path, 4)
    (back,) = read_records(tmp_path)
    assert back["schema_version"] == SCHEMA_VERSION and back["code_json"] is None
    assert back["compiler_notes"] == row(0)["compiler_notes"] and back["score"] == 0.93


def test_a_version_5_part_is_read_with_no_e2e_and_its_code_kept(tmp_path):
    e2e = [{"name": "b1_ctx32k", "batch": 1, "heads": 128, "topk": 2048, "context": 32768, "step_us": 130.0,
            "step_iqr_us": 1.0, "rest_us": 118.0, "attention_us": 12.0, "alone_us": 11.0,
            "out_rel_l2": 0.004, "lse_rel_l2": 1e-7}]
    ResultsWriter(tmp_path, "run-1").append([row(0) | {"code_json": '{"r":"x"}', "e2e": e2e, "e2e_s": 2.5}])
    (path,) = tmp_path.glob("part-*.parquet")
    assert read_records(tmp_path)[0]["e2e"] == e2e
    as_version(path, 5)
    (back,) = read_records(tmp_path)
    assert back["e2e"] is None and back["e2e_s"] is None and back["code_json"] == '{"r":"x"}'


def test_a_version_6_part_is_read_with_code_bytes_null_and_its_resources_kept(tmp_path):
    ResultsWriter(tmp_path, "run-1").append([row(0) | {"registers": 168, "code_bytes": 348928}])
    (path,) = tmp_path.glob("part-*.parquet")
    assert read_records(tmp_path)[0]["code_bytes"] == 348928
    as_version(path, 6)
    (back,) = read_records(tmp_path)
    assert back["schema_version"] == SCHEMA_VERSION and back["code_bytes"] is None and back["registers"] == 168


def test_a_version_3_part_is_read_with_compiler_notes_null_and_its_own_fields_kept(tmp_path):
    ResultsWriter(tmp_path, "run-1").append([row(0)])
    (path,) = tmp_path.glob("part-*.parquet")
    as_version(path, 3)
    (back,) = read_records(tmp_path)
    assert back["schema_version"] == SCHEMA_VERSION and back["compiler_notes"] is None
    assert back["device_index"] == 1 and back["score"] == 0.93


def test_a_version_7_part_is_read_with_build_sm_counts_null_and_its_code_size_kept(tmp_path):
    ResultsWriter(tmp_path, "run-1").append([row(0) | {"code_bytes": 348928}])
    (path,) = tmp_path.glob("part-*.parquet")
    assert read_records(tmp_path)[0]["build_sm_counts"] == [114, 132]
    as_version(path, 7)
    (back,) = read_records(tmp_path)
    assert back["schema_version"] == SCHEMA_VERSION and back["build_sm_counts"] is None
    assert back["code_bytes"] == 348928 and back["device_index"] == 1


def test_a_bit_flipped_on_disk_in_a_page_of_numbers_is_named_not_read_as_another_time(tmp_path):
    """A flipped bit inside a page of float64s still parses: without the pages' checksums the part
    would read back with another median, silently. The writer checksums each page; the reader
    refuses the page naming the part."""
    median = 17.123456789
    written = row(0)
    # between the column's least and greatest medians, so that the pages' statistics hold no copy
    written["workloads"] = [{**written["workloads"][0], "median_us": us} for us in (1.5, median, 90.0)]
    part = ResultsWriter(tmp_path, "run-1").append([written])
    flip_a_bit_of(part, median)
    with pytest.raises(UserError, match=rf"{part}: unreadable Parquet part: .*CRC checksum verification failed"):
        read_records(tmp_path)
    # the same bytes unchecked: a number, wrong (what a part written without checksums gives)
    unchecked = pq.read_table(part).to_pylist()[0]["workloads"][1]["median_us"]
    assert unchecked != median and abs(unchecked - median) < 1


def test_parts_written_before_page_checksums_still_read(tmp_path):
    full = {**dict.fromkeys(SCHEMA.names), **row(0), "run_id": "r", "schema_version": SCHEMA_VERSION,
            "created_at": dt.datetime.now(dt.timezone.utc)}
    table = pa.Table.from_pylist([full], schema=SCHEMA)
    pq.write_table(table, tmp_path / "part-000000.parquet")  # no checksums, as every part before them
    assert read_records(tmp_path)[0]["workloads"][0]["median_us"] == 17.0


def flip_a_bit_of(part, value: float) -> None:
    """One bit of ``value``'s one copy in ``part`` flipped, as a failing disk would."""
    data = part.read_bytes()
    at = data.find(struct.pack("<d", value))
    assert at > 0 and data.count(struct.pack("<d", value)) == 1  # the value's one copy, in its data page
    part.write_bytes(data[:at + 3] + bytes([data[at + 3] ^ 0x04]) + data[at + 4:])
