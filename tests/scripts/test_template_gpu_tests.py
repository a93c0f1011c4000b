"""scripts/device/template_gpu_tests.sh, which the prepared device calls end with: the tests it is
given (by default the CUDA template's three GPU test files) under the seconds a call has left,
pytest's summary in $OUT/callN-gpu_tests.log and its exit status in $OUT/callN-machine.txt; with a
minute or less left, nothing. Run here on real pytest runs of small test files."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "device" / "template_gpu_tests.sh"


def run_script(tmp_path: Path, seconds: int, *tests: str) -> Path:
    out = tmp_path / "out"
    out.mkdir()
    env = {**os.environ, "OUT": str(out), "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    done = subprocess.run(["bash", str(SCRIPT), "7", str(seconds), *tests], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return out


def test_the_tests_summary_and_exit_status_are_written_for_the_call(tmp_path):
    tests = tmp_path / "test_two.py"
    tests.write_text("def test_passes():\n    assert 1 + 1 == 2\n\n\ndef test_fails():\n    assert 1 + 1 == 3\n")
    out = run_script(tmp_path, 90, str(tests))
    assert "1 failed, 1 passed" in (out / "call7-gpu_tests.log").read_text()
    assert re.fullmatch(r"gpu tests rc 1 in \d+ s\n", (out / "call7-machine.txt").read_text())


def test_a_minute_or_less_left_runs_nothing(tmp_path):
    tests = tmp_path / "test_one.py"
    tests.write_text("def test_passes():\n    pass\n")
    out = run_script(tmp_path, 60, str(tests))
    assert not any(out.iterdir())


def test_its_default_tests_exist():
    defaults = re.search(r"\|\| tests=\(([^)]*)\)", SCRIPT.read_text()).group(1).split()
    assert defaults and all((REPO / path).is_file() for path in defaults), defaults
