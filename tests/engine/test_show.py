"""`show` on recorded runs."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("run", ["h200-cuda2-20261130", "h200-cuda3-20261130"])
def test_show_keeps_genomes_of_different_cache_formats_in_separate_tables(run):
    """A genome reading an FP8 cache solves another problem than one reading bf16: `show` never
    names one the best of the other's workloads (the recorded CUDA runs hold both)."""
    import io
    import re

    from engine.show import show

    buf = io.StringIO()
    show(REPO / "docs" / "runs" / run, buf)
    text = buf.getvalue()
    tables = re.split(r"\nbest genome per workload for ", text)[1:]
    assert [t.split(" ", 1)[0] for t in tables] == ["KV_FORMAT=bf16", "KV_FORMAT=fp8_656"]
    for table in tables:
        fmt = table.split(" ", 1)[0].split("=")[1]
        rows = [line for line in table.splitlines() if line.startswith("  b")]
        assert len(rows) == 12
        assert all(f'"KV_FORMAT":"{fmt}"' in line for line in rows)
