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
    assert {"harness.py", "guards.py", "bench.py", "worker.py", "sparse_mla.py"} <= names
