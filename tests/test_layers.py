"""The direction of imports (../shared/design/ARCHITECTURE.md): evaluators never import engine,
strategies never touch a device, and only the results writer writes Parquet."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_evaluators_never_import_engine():
    for path in (REPO / "evaluators").rglob("*.py"):
        assert not any(n == "engine" or n.startswith("engine.") for n in imports(path)), path


def test_strategies_never_import_a_device_library_or_the_harness():
    for path in (REPO / "engine" / "strategies").rglob("*.py"):
        bad = {n for n in imports(path) if n.split(".")[0] in ("torch", "triton", "evaluators")}
        assert not bad, (path, bad)


def test_only_the_results_writer_writes_parquet():
    writers = [p for p in (REPO / "engine").rglob("*.py")
               if "write_table" in p.read_text() and p.name != "writer.py"]
    assert writers == []


def test_the_driver_process_never_loads_torch():
    """The CLI (and the runner it drives) must stay out of torch and CUDA: a poisoned context
    in the driver would end the run. Source checks it makes (CUDA) come from torch-free modules."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import sys, engine.cli; print(sorted(m for m in sys.modules "
                           "if m.split('.')[0] in ('torch', 'triton')))"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
