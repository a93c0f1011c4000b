"""GPU tier: an export of a recorded H200 run of the CUDA template, used as a model would use
it: `launcher.load(select(...))` from the export folder, on fresh inputs of the run's shapes, in
a CUDA graph, checked against the float64 reference, for each cache format."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.gpu._export_use import use_export

REPO = Path(__file__).resolve().parents[2]
RUN = REPO / "docs" / "runs" / "h200-cuda17-20261205"  # a default genome of each format, winners of each


@pytest.mark.gpu
def test_an_exported_cuda_kernel_runs_from_the_export_folder_in_a_cuda_graph(tmp_path):
    from engine.export import export

    folder = tmp_path / "export"
    table = export(RUN, folder, io.StringIO())
    assert table["cubins"]["built"], table["cubins"]
    done = use_export(folder)
    assert done.returncode == 0, done.stderr[-3000:]
    results = [line.split(" ", 2) for line in done.stdout.splitlines()]
    assert [r[0] for r in results] == ["bf16", "fp8_656"]
    assert all(r[1].startswith("kernels/") and r[2] == "None" for r in results), done.stdout
