"""The fire drill: injected faults are each recorded with their expected status, outside the
budget, and the honest search sees exactly what a run without them sees."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine.faults import FAULTS, expected_statuses, faults_for
from engine.store.reader import read_records

REPO = Path(__file__).resolve().parents[2]
SMALL = "tests/fixtures/templates/sparse_mla_small.triton.j2"


def evolve(out: Path, *extra: str) -> subprocess.CompletedProcess:
    # five genomes: the drill's sixth fault would be a hang, which costs the whole --timeout-s (its
    # status is the catalogue test's below, with a shorter limit)
    return subprocess.run([sys.executable, "-m", "engine", "evolve", SMALL, "--budget", "5",
                           "--strategy", "random", "--seed", "3", "--device", "cpu", "--timeout-s", "20",
                           "--out", str(out), *extra], cwd=REPO, capture_output=True, text=True, timeout=900)


def test_every_injected_fault_gets_its_expected_status_and_the_search_is_unchanged(tmp_path):
    drilled = evolve(tmp_path / "drill", "--inject-faults", "1.0")
    assert drilled.returncode == 0, drilled.stderr
    clean = evolve(tmp_path / "clean")
    assert clean.returncode == 0, clean.stderr
    drill_rows = read_records(tmp_path / "drill")
    injected = [r for r in drill_rows if r["kind"] == "injected"]
    assert len(injected) == 5  # rate 1.0: one before each genome
    for r in injected:
        assert r["status"] in expected_statuses(r["operator"]), (r["operator"], r["status"], r["error"])
    genomes = [(r["genome_id"], r["status"]) for r in drill_rows if r["kind"] == "genome"]
    assert genomes == [(r["genome_id"], r["status"]) for r in read_records(tmp_path / "clean")
                       if r["kind"] == "genome"]
    assert all(status == "ok" for _, status in genomes)
    assert "5 with the expected status" in drilled.stdout


def test_the_catalogue_names_a_status_for_every_fault():
    assert len({f.name for f in FAULTS}) == len(FAULTS) >= 7
    assert all(f.expected for f in FAULTS)


@pytest.fixture(scope="module")
def cpu_runner(module_worker):
    return module_worker("cpu", timeout_s=10)  # short: the hang fault waits for it


@pytest.mark.parametrize("fault", faults_for("cpu"), ids=[f.name for f in faults_for("cpu")])
def test_each_fault_of_the_catalogue_gets_its_expected_status(cpu_runner, fault):
    from engine.template import load_template

    template = load_template(REPO / SMALL)
    source = fault.apply(template.render(template.load_space().default_params()), template.entry)
    result = cpu_runner.evaluate(template.request(source, seed=5))
    assert result["status"] in fault.expected, (result["status"], result["error"])


def test_the_injector_draws_the_requested_share_exactly_and_every_kind_of_fault():
    from collections import Counter

    from engine.faults import FaultInjector

    for device_kind in ("cuda", "cpu"):
        for seed in range(5):
            injector = FaultInjector(0.1, seed, device_kind)
            drawn = [injector.draw() for _ in range(300)]
            faults = [f for f in drawn if f is not None]
            assert len(faults) == 30
            kinds = Counter(f.name for f in faults)
            catalogue = faults_for(device_kind)  # drawn in shuffled rounds of the whole catalogue
            assert set(kinds) == {f.name for f in catalogue} and min(kinds.values()) >= 30 // len(catalogue)
            again = FaultInjector(0.1, seed, device_kind)
            assert [again.draw() for _ in range(300)] == drawn  # the seed fixes the drill
    assert "launch_failure" not in {f.name for f in faults_for("cpu")}  # the interpreter has no grid limit
    assert {f.name for f in faults_for("cuda")} == {f.name for f in FAULTS}
    with pytest.raises(ValueError, match="between 0 and 1"):
        FaultInjector(1.5, 0, "cpu")
