"""Harness integrity: an edit to the evaluator's files during a run stops it."""

from __future__ import annotations

import shutil

import pytest

from evaluators.integrity import HARNESS_DIR, HarnessChanged, HarnessIntegrity


def test_an_edited_harness_file_is_named_and_stops_the_check(tmp_path):
    copy = tmp_path / "evaluators"
    shutil.copytree(HARNESS_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    guard = HarnessIntegrity(copy)
    guard.check()  # unchanged: passes
    with open(copy / "bench.py", "a") as f:
        f.write("\n# a candidate was here\n")
    with pytest.raises(HarnessChanged, match="bench.py"):
        guard.check()


def test_an_added_or_removed_harness_file_counts_as_a_change(tmp_path):
    copy = tmp_path / "evaluators"
    shutil.copytree(HARNESS_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    guard = HarnessIntegrity(copy)
    (copy / "sitecustomize.py").write_text("import os\n")
    with pytest.raises(HarnessChanged, match="sitecustomize.py"):
        guard.check()
    (copy / "sitecustomize.py").unlink()
    (copy / "guards.py").unlink()
    with pytest.raises(HarnessChanged, match="guards.py"):
        guard.check()


def test_the_real_harness_is_covered():
    names = set(HarnessIntegrity().baseline)
    assert {"harness.py", "guards.py", "bench.py", "worker.py", "sparse_mla.py", "harness_state.py"} <= names
    assert "hardware/h200.md" in names  # its ceilings set the roofline floor


def test_an_edited_hardware_sheet_stops_the_check(tmp_path):
    copy, sheets = tmp_path / "evaluators", tmp_path / "hardware"
    shutil.copytree(HARNESS_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(HARNESS_DIR.parent / "context" / "hardware", sheets)
    guard = HarnessIntegrity(copy, also=((sheets, "*.md"),))
    guard.check()
    (sheets / "h200.md").write_text((sheets / "h200.md").read_text().replace("4.3", "43"))
    with pytest.raises(HarnessChanged, match="hardware/h200.md"):
        guard.check()
