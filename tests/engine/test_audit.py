"""`engine audit`: top genomes re-run in fresh workers; what does not reproduce is reported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from engine.audit import speed_drift
from engine.genome import Genome, complete
from engine.run_folder import open_run
from engine.store.writer import ResultsWriter
from engine.template import load_template

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path("tests/fixtures/templates")


def engine(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=600)


def timing(name: str, median: float, iqr: float) -> dict:
    return {"name": name, "median_us": median, "iqr_us": iqr}


def recorded_run(tmp_path: Path, fault: str, **row) -> tuple[Path, object]:
    """A run folder of the faulty fixture template holding one ok row for ``fault`` (the row's
    other fields as given), as a run might have recorded it."""
    template = load_template(FIXTURES / "sparse_mla_faulty.triton.j2")
    run = tmp_path / "run"
    config = open_run(run, template, "random", 0, resume=False)
    space = template.load_space()
    genome = Genome.make(space, complete(space, {"FAULT": fault}), template.content_hash)
    ResultsWriter(run, config.run_id).append([{
        "attempt": 0, "kind": "genome", "genome_id": genome.genome_id, "template": str(template.path),
        "template_hash": template.content_hash, "problem": template.problem, "language": "triton",
        "params_json": genome.params_json, "parent_ids": [], "operator": "random", "strategy": "random",
        "status": "ok", "cpu_row": True, **row}])
    return run, template


def test_speed_within_the_recorded_spread_reproduces_and_outside_it_does_not():
    old = [timing("a", 100.0, 1.0), timing("b", 50.0, 4.0)]
    assert speed_drift(old, [timing("a", 104.0, 1.0), timing("b", 61.0, 4.0)]) == []  # 5% / 3 IQR
    drifts = speed_drift(old, [timing("a", 110.0, 1.0), timing("b", 50.0, 4.0)])
    assert drifts == ["a: 100.0 -> 110.0 us (allowed +-5.0)"]
    assert speed_drift(old, [timing("a", 100.0, 1.0)]) == ["b: not timed again"]


def test_an_honest_run_reproduces(tmp_path):
    run = tmp_path / "run"
    made = engine("evolve", str(FIXTURES / "sparse_mla_small.triton.j2"), "--budget", "2",
                  "--strategy", "random", "--device", "cpu", "--out", str(run))
    assert made.returncode == 0, made.stderr
    done = engine("audit", str(run), "--top", "2", "--device", "cpu")
    assert done.returncode == 0, done.stdout + done.stderr
    verdicts = [line.split()[-1] for line in done.stdout.splitlines() if "score" in line]
    assert verdicts == ["reproduces", "reproduces"] and "0 of 2 did not reproduce" in done.stdout


def test_a_recorded_pass_that_fails_when_run_again_is_reported(tmp_path):
    """A row that says ok for a kernel that is wrong (as a weaker harness or a lucky race might
    have recorded): the audit runs it again and says so."""
    run, template = recorded_run(tmp_path, "half_heads", score=0.5, baseline="forged",
                                 workloads=[{"name": "b1_ctx1k", "median_us": 1.0, "iqr_us": 0.1}])
    done = engine("audit", str(run), "--device", "cpu")
    assert done.returncode == 1
    assert "DOES NOT REPRODUCE" in done.stdout and "correctness: now incorrect" in done.stdout
    assert json.loads((run / "run.json").read_text())["template_hash"] == template.content_hash


def test_a_run_keeps_its_template_and_an_edited_one_is_read_from_the_copy(tmp_path):
    import shutil

    from engine.run_folder import read_config, template_of_run

    src = tmp_path / "t.triton.j2"
    src.write_text((REPO / FIXTURES / "sparse_mla_small.triton.j2").read_text()
                   .replace('"../genomes/small.toml"', f'"{REPO / "tests/fixtures/genomes/small.toml"}"'))
    run = tmp_path / "run"
    original = load_template(src)
    open_run(run, original, "random", 0, resume=False)
    src.write_text(src.read_text() + "\n# edited\n")
    kept = template_of_run(run, read_config(run))
    assert kept.content_hash == original.content_hash and kept.text == original.text
    assert kept.load_space().genes == original.load_space().genes
    shutil.rmtree(run / "snapshot")  # a run from before runs kept a copy
    done = engine("audit", str(run), "--device", "cpu")
    assert done.returncode == 2 and "changed since run" in done.stderr and "keeps no copy" in done.stderr


def test_every_archived_run_still_names_a_readable_template():
    from engine.run_folder import read_config, template_of_run

    runs = sorted(p for p in (REPO / "docs" / "runs").iterdir() if p.is_dir())
    assert any(run.name.startswith("h100-") for run in runs) and any(run.name.startswith("h200-") for run in runs)
    for run in runs:
        config = read_config(run)
        assert template_of_run(run, config).content_hash == config.template_hash, run.name


def test_each_genome_is_audited_on_the_gpu_that_timed_it(tmp_path):
    import io

    from engine.audit import audit
    from evaluators.runner import WorkerRunner

    run, _ = recorded_run(tmp_path, "none", score=1.0, device_index=1, workloads=[])
    asked = []

    def make_runner(tpl, folder, device_index):
        asked.append(device_index)
        return WorkerRunner(folder / "k", folder / "w.log", device="cpu", timeout_s=60)

    assert audit(run, 1, make_runner, io.StringIO()) == 0
    assert asked == [1]



def test_a_gpu_run_audited_without_a_gpu_checks_correctness_and_compares_no_timings(tmp_path):
    """The interpreter's timings are thousands of times a GPU's: read as drift, every genome of a
    GPU run would fail to reproduce on a machine without one."""
    env = {"device_kind": "cuda", "gpu": "NVIDIA H200", "driver": "580", "cuda": "13.0", "torch": "2.11",
           "triton": "3.6", "python": "3.12", "host": "gpu-host"}
    run, _ = recorded_run(tmp_path, "none", score=0.5, cpu_row=False, env=env,
                          workloads=[{"name": "b1_ctx1k", "median_us": 18.7, "iqr_us": 0.1}])
    done = engine("audit", str(run), "--device", "cpu")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "reproduces (correctness only)" in done.stdout and "0 of 1 did not reproduce" in done.stdout
    assert "speed not compared: re-run under the Triton interpreter on CPU, not on NVIDIA H200" in done.stdout


def test_a_gpu_run_audited_without_a_gpu_still_reports_a_wrong_kernel(tmp_path):
    env = {"device_kind": "cuda", "gpu": "NVIDIA H200", "driver": "580", "cuda": "13.0", "torch": "2.11",
           "triton": "3.6", "python": "3.12", "host": "gpu-host"}
    run, _ = recorded_run(tmp_path, "half_heads", score=0.5, cpu_row=False, env=env,
                          workloads=[{"name": "b1_ctx1k", "median_us": 18.7, "iqr_us": 0.1}])
    done = engine("audit", str(run), "--device", "cpu")
    assert done.returncode == 1 and "correctness: now incorrect" in done.stdout
