"""scripts/sass_diff.py with the local nvcc and cuobjdump (no GPU): a template change that leaves
every genome's machine code alone passes, one that changes it is named, genome by genome."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from evaluators.cuda_compile import cuobjdump_path
from tests.marks import NEEDS_NVCC

REPO = Path(__file__).resolve().parents[2]
TINY = REPO / "tests" / "fixtures" / "templates" / "tiny.cu.j2"


pytestmark = [NEEDS_NVCC, pytest.mark.skipif(cuobjdump_path() is None, reason="needs cuobjdump")]


GENOMES = {"narrow": {"THREADS": 64, "UNROLL": 1}, "wide": {"THREADS": 256, "UNROLL": 16, "SMEM_FLOATS": 8192},
           "staged": {"SMEM_FLOATS": 1024}}


def sass_diff(tmp_path: Path, old_text: str, genomes: dict = GENOMES) -> subprocess.CompletedProcess:
    old, named = tmp_path / "old.cu.j2", tmp_path / "genomes.json"
    old.write_text(old_text)
    named.write_text(json.dumps(genomes))
    return subprocess.run([sys.executable, "scripts/sass_diff.py", str(TINY), "--base-file", str(old),
                           "--samples", "0", "--genomes", str(named), "--cache", str(tmp_path / "cache")],
                          cwd=REPO, capture_output=True, text=True, timeout=600)


def test_a_comment_and_a_dead_declaration_change_no_genomes_machine_code(tmp_path):
    text = TINY.read_text()
    old = text.replace("// Test fixture for the CUDA build path", "// an older comment\n// Test fixture for the CUDA build path")
    old = old.replace("  float acc[{{ UNROLL }}];", "  const int unused_here = 3;\n  float acc[{{ UNROLL }}];")
    assert old != text
    done = sass_diff(tmp_path, old)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[0] == "4 genomes against " + str(tmp_path / "old.cu.j2") + ": same 4"


def test_a_change_of_the_code_is_named_for_each_genome_it_touches(tmp_path):
    text = TINY.read_text()
    old = text.replace("acc[u] += __bfloat162float(row[c]);", "acc[u] += 2.f * __bfloat162float(row[c]);")
    assert old != text
    done = sass_diff(tmp_path, old)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.strip().splitlines()
    # "NAME: SASS differs[ (figures that moved)]  {genes}"
    assert len([line for line in lines if re.match(r"^\w+: SASS differs( \([^)]*\))?  \{", line)]) == 4
    assert lines[-1].endswith("SASS differs 4")


def test_a_revision_without_the_template_is_one_line_and_status_2():
    done = subprocess.run([sys.executable, "scripts/sass_diff.py", str(TINY), "--base", "no-such-revision"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "no-such-revision" in done.stderr


def test_a_genome_that_no_longer_builds_is_named_with_the_compilers_error(tmp_path):
    done = sass_diff(tmp_path, TINY.read_text(), {"broken": {"BREAK": True}})
    assert done.returncode == 1
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("broken: ")]
    assert "does not build now" in line and "this_does_not_compile" in line
    assert done.stdout.strip().splitlines()[-1].endswith(": same 1, does not build now 1")
