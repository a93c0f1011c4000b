"""Optuna strategies behind ask/tell, the replay of a recorded sweep, and compare-strategies."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from pathlib import Path

import optuna
import pytest

from engine.compare import compare, evaluations_to, load_sweep, random_baseline, run_strategy
from engine.genome import Genome, canonical_json
from engine.run_folder import open_run
from engine.store.writer import ResultsWriter
from engine.strategies import Told, make_strategy
from engine.strategies.base import StorageError
from engine.template import load_template

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "templates" / "strategy_fixture.triton.j2"


def synthetic_score(p) -> float | None:
    """A landscape with structure (every gene matters, one basin) and failures in one corner."""
    if p["NUM_WARPS"] == 4 and p["NUM_STAGES"] >= 3:
        return None
    return (1 + abs(math.log2(p["TOPK_TILE"] / 32)) * 0.3 + 0.1 * p["NUM_STAGES"] + 0.2 * (p["NUM_SPLITS"] != 8)
            + 0.5 * (p["HEADS_PER_PROGRAM"] != 32) + 0.05 * (p["COMBINE"] != "fused"))


def write_sweep(run: Path, fixed: dict | None = None) -> Path:
    """An exhaustive sweep of the fixture space (or of its slice), written as a real run folder."""
    template = load_template(FIXTURE)
    config = open_run(run, template, "sweep", 0, resume=False, fixed=fixed)
    space = template.load_space().restrict(fixed) if fixed else template.load_space()
    noise = random.Random(0)
    rows = []
    for k, params in enumerate(space.valid_points()):
        g = Genome.make(space, params, template.content_hash)
        score = synthetic_score(params)
        rows.append({"attempt": k, "kind": "genome", "genome_id": g.genome_id, "template": str(template.path),
                     "template_hash": template.content_hash, "problem": template.problem, "language": "triton",
                     "params_json": g.params_json, "operator": "sweep", "strategy": "sweep",
                     "status": "ok" if score else "compile_error", "cpu_row": False, "baseline": "synthetic",
                     "score": score * (1 + 0.01 * noise.random()) if score else None})
    ResultsWriter(run, config.run_id).append(rows)
    return run


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    return write_sweep(tmp_path_factory.mktemp("sweep") / "run")


def test_a_sweep_of_a_slice_replays_strategies_inside_the_slice_only(tmp_path):
    sweep = load_sweep(write_sweep(tmp_path / "slice", {"COMBINE": "fused", "NUM_WARPS": 4}))
    assert sweep.fixed == {"COMBINE": "fused", "NUM_WARPS": 4} and sweep.coverage() == 1.0
    for name in ("ga", "tpe", "random"):
        strategy = make_strategy(name, sweep.space, 0)
        for _ in range(30):
            (p,) = strategy.ask(1)
            key = canonical_json(p.params)
            assert key in sweep.objective  # the replay can answer every proposal
            strategy.tell([Told(Genome(key, "t").genome_id, p.params, sweep.objective[key])])


def test_a_sweep_loads_with_its_coverage_and_best(sweep_dir):
    sweep = load_sweep(sweep_dir)
    assert sweep.coverage() == 1.0 and len(sweep.objective) >= 1000
    assert sweep.best == min(v for v in sweep.objective.values() if v is not None)
    assert any(v is None for v in sweep.objective.values())


def test_the_calculated_random_baseline_matches_the_combinatorics():
    class Tiny:  # 10 genomes, one within target: P(no hit in j draws) = (10 - j) / 10
        objective = {str(i): float(i + 1) for i in range(10)}
    curve, median = random_baseline(Tiny, 10, target=1.0)
    assert median == 5
    assert curve[0] == 5.0 or curve[0] == 6.0  # median of one uniform draw of 1..10
    assert curve == sorted(curve, reverse=True) and curve[-1] == 1.0


@pytest.mark.parametrize("name", ["tpe", "gp", "cmaes", "nsga2", "nsga3"])
def test_optuna_strategies_propose_only_valid_unseen_genomes_and_learn_from_failures(sweep_dir, name):
    sweep = load_sweep(sweep_dir)
    curve = run_strategy(sweep, name, seed=1, budget=25 if name != "gp" else 15)
    assert len(curve) == (25 if name != "gp" else 15)
    assert curve == sorted(curve, reverse=True)  # best-so-far never rises
    strategy = make_strategy(name, sweep.space, 2)
    seen = set()
    for _ in range(12):
        (p,) = strategy.ask(1)
        assert sweep.space.is_valid(p.params)
        gid = Genome.make(sweep.space, p.params, "t").genome_id
        assert gid not in seen
        seen.add(gid)
        strategy.tell([Told(gid, p.params, None)])  # every evaluation fails: none may come back


def test_tpe_reaches_the_target_in_fewer_evaluations_than_calculated_random_search(sweep_dir):
    sweep = load_sweep(sweep_dir)
    results, base_median, base_curve = compare(sweep, ["tpe", "ga"], budget=80, seeds=5, threshold=0.03)
    by_name = {r.name: r for r in results}
    assert by_name["tpe"].median_evals < base_median and by_name["ga"].median_evals < base_median
    assert len(base_curve) == 80
    for r in results:
        assert all(evaluations_to(c, sweep.best * 1.03) in (None, *range(1, 81)) for c in r.curves)


def test_optuna_storage_is_a_journal_file_or_a_database_url(tmp_path, sweep_dir):
    space = load_sweep(sweep_dir).space
    for storage, load in [(str(tmp_path / "study.journal"), None), (f"sqlite:///{tmp_path / 'study.db'}", None)]:
        strategy = make_strategy("tpe", space, 0, {"storage": storage, "study_name": "s1"})
        (p,) = strategy.ask(1)
        strategy.tell([Told("g", p.params, 1.5)])
        if "://" in storage:
            study = optuna.load_study(study_name="s1", storage=storage)
        else:
            from optuna.storages import JournalStorage
            from optuna.storages.journal import JournalFileBackend
            study = optuna.load_study(study_name="s1", storage=JournalStorage(JournalFileBackend(storage)))
        assert [t.value for t in study.trials if t.value is not None] == [1.5]


def test_a_journal_torn_at_its_last_line_loses_that_line_and_opens_with_what_it_held(tmp_path, sweep_dir):
    """A kill or a full disk in the middle of an append leaves a last line without its end; the
    next append would join it into a line no reader parses, and the study could never be opened."""
    space, journal = load_sweep(sweep_dir).space, tmp_path / "study.journal"
    strategy = make_strategy("tpe", space, 0, {"storage": str(journal), "study_name": "s1"})
    (p,) = strategy.ask(1)
    strategy.tell([Told("g", p.params, 1.5)])
    whole = journal.read_bytes()
    journal.write_bytes(whole + b'{"op_code": 4, "worker_id": "x", "trial_id": 3, "param')
    reopened = make_strategy("tpe", space, 0, {"storage": str(journal), "study_name": "s1"})
    assert journal.read_bytes().startswith(whole)
    assert all(json.loads(line) for line in journal.read_text().splitlines())  # the torn line is gone
    (q,) = reopened.ask(1)  # appends to the journal, and the told genome is not proposed again
    reopened.tell([Told("h", q.params, 2.5)])
    assert q.params != p.params
    study = make_strategy("tpe", space, 0, {"storage": str(journal), "study_name": "s1"}).study
    assert sorted(t.value for t in study.trials if t.value is not None) == [1.5, 2.5]


def test_a_stored_study_of_other_objectives_is_refused(tmp_path, sweep_dir):
    space, journal = load_sweep(sweep_dir).space, str(tmp_path / "study.journal")
    make_strategy("nsga2", space, 0, {"storage": journal, "study_name": "s1", "directions": 2})
    with pytest.raises(StorageError, match="minimises 2 objective"):
        make_strategy("tpe", space, 0, {"storage": journal, "study_name": "s1"})


@pytest.mark.parametrize("name", ["random", "exhaustive"])
def test_a_budget_past_the_sweeps_size_ends_once_the_strategy_repeats_itself(tmp_path, name):
    """Every genome of a slice evaluated, a strategy can only repeat: fifty repeats in a row end
    the replay, as they end evolve (a random replay of a 2,000 budget on a smaller sweep spun for hours)."""
    sweep = load_sweep(write_sweep(tmp_path / "slice", {"COMBINE": "fused", "NUM_WARPS": 4}))
    size = len(sweep.space.listed())
    curve = run_strategy(sweep, name, 0, budget=size + 500)
    assert size - 2 <= len(curve) <= size  # random's last draws near a spent space may repeat a genome
    assert curve[-1] == min(v for v in sweep.objective.values() if v is not None)


def test_a_run_that_is_no_sweep_is_said_to_be_none_beside_its_table(sweep_dir):
    import io

    from engine.compare import report

    for run, noted in ((REPO / "docs" / "runs" / "h200-triton-ga200-final-20261130", True), (sweep_dir, False)):
        buf = io.StringIO()
        report([], 10.0, load_sweep(run), 40, 3, 0.03, buf)
        assert ("not a sweep" in buf.getvalue()) == noted, buf.getvalue()


def test_unknown_strategy_options_are_refused(sweep_dir):
    with pytest.raises(ValueError, match="bogus"):
        make_strategy("tpe", load_sweep(sweep_dir).space, 0, {"bogus": 1})


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=600)


def test_compare_strategies_prints_the_table_and_writes_a_png(sweep_dir, tmp_path):
    png = tmp_path / "curves.png"
    done = cli("compare-strategies", str(sweep_dir), "--strategies", "random,ga,tpe", "--budget", "40",
               "--seeds", "3", "--png", str(png))
    assert done.returncode == 0, done.stderr
    assert "random*" in done.stdout and "median evals" in done.stdout
    for name in ("random", "ga", "tpe"):
        assert any(line.split()[0] == name for line in done.stdout.splitlines()[2:] if line.strip())
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args, words", [
    (["--strategies", "random,annealing"], "unknown ['annealing']"),
    (["--template", "templates/sparse_mla.triton.j2"], "a sweep of"),
    (["--threshold", "3"], "--threshold"),
])
def test_compare_strategies_bad_input_is_one_line_and_exit_2(sweep_dir, args, words):
    done = cli("compare-strategies", str(sweep_dir), *args)
    assert done.returncode == 2 and words in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_evolve_with_tpe_keeps_its_study_in_the_run_folder(tmp_path):
    run = tmp_path / "run"
    done = cli("evolve", "tests/fixtures/templates/sparse_mla_small.triton.j2", "--budget", "3",
               "--strategy", "tpe", "--device", "cpu", "--out", str(run))
    assert done.returncode == 0, done.stderr
    assert (run / "optuna.journal").stat().st_size > 0


# -- the recorded H200 sweep (docs/runs, see docs/BENCHMARKS.md) -------------------------------

H200_SWEEP = REPO / "docs" / "runs" / "h200-sweep-slice-20261130"


def test_the_recorded_h200_sweep_covers_its_slice():
    sweep = load_sweep(H200_SWEEP)
    assert len(sweep.objective) == 1479 and sweep.coverage() == 1.0
    assert sweep.fixed == {"MASK_INVALID_ROWS": False, "SCORE_LAYOUT": "heads_by_rows"}
    assert 0.9 < sweep.best < 1.0  # something beats the default genome, by little


def test_on_the_h200_sweep_the_default_strategy_needs_under_a_quarter_of_random_searchs_evaluations():
    from engine.cli import DEFAULT_STRATEGY as default  # whatever evolve uses
    sweep = load_sweep(H200_SWEEP)
    results, base_median, _ = compare(sweep, [default], budget=110, seeds=20, threshold=0.03)
    assert base_median > 400  # two genomes of 1,479 lie within 3% of the best
    assert results[0].median_evals <= base_median / 4, (default, results[0].median_evals, base_median)


def test_on_the_h200_sweep_the_ga_also_needs_under_a_quarter_of_random_searchs_evaluations():
    sweep = load_sweep(H200_SWEEP)
    results, base_median, _ = compare(sweep, ["ga"], budget=150, seeds=20, threshold=0.03)
    assert results[0].median_evals <= base_median / 4, (results[0].median_evals, base_median)


def test_objectives_other_than_score_are_read_relative_to_the_default_genome():
    sweep = load_sweep(H200_SWEEP, objective="large_batch")
    assert sweep.objective_name == "large_batch"
    default = canonical_json(sweep.space.default_params())
    assert sweep.objective[default] == pytest.approx(1.0)
    assert sweep.best < 0.97  # the value_columns kernels win at large batch


def test_replays_do_not_hand_the_ga_the_default_genome():
    sweep = load_sweep(H200_SWEEP)
    seeded = make_strategy("ga", sweep.space, 0)
    assert seeded.ask(1)[0].operator == "seed-default"
    unseeded = make_strategy("ga", sweep.space, 0, {"seed_default": False})
    assert all(p.operator != "seed-default" for p in unseeded.ask(16))
    assert run_strategy(sweep, "ga", 0, 1)[0] != sweep.objective[canonical_json(sweep.space.default_params())]


def test_compare_strategies_refuses_an_objective_the_records_do_not_carry():
    done = cli("compare-strategies", str(H200_SWEEP), "--objective", "energy")
    assert done.returncode == 2 and "--objective energy" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_a_resumed_optuna_study_neither_duplicates_nor_reproposes_what_it_holds(tmp_path, sweep_dir):
    space = load_sweep(sweep_dir).space
    options = {"storage": str(tmp_path / "study.journal"), "study_name": "run"}
    first = make_strategy("tpe", space, 0, options)
    told = []
    for p in first.ask(6):
        told.append(Told(Genome.make(space, p.params, "t").genome_id, p.params, 1.0 + len(told)))
    first.tell(told)
    stored = len(first.study.trials)  # the six, and any infeasible draws told as failures
    resumed = make_strategy("tpe", space, 0, options)
    resumed.tell(told)  # what restore() does with the earlier rows
    assert len(resumed.study.trials) == stored
    fresh = {canonical_json(p.params) for p in resumed.ask(20)}
    assert not fresh & {canonical_json(t.params) for t in told}
