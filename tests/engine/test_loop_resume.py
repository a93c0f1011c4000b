"""The evolve loop with a real worker under the interpreter: budget, lineage, resume."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from engine.loop import EvolveLoop
from engine.run_folder import open_run, read_config
from engine.store.reader import read_records
from engine.store.writer import ResultsWriter
from engine.strategies import make_strategy
from engine.template import load_template
from evaluators.runner import WorkerRunner

SMALL = Path(__file__).resolve().parents[1] / "fixtures" / "templates" / "sparse_mla_small.triton.j2"


@pytest.fixture(scope="module")
def runner(module_worker):
    return module_worker("cpu", timeout_s=120)


def run(run_dir: Path, runner, budget: int, resume: bool, strategy: str = "ga"):
    template = load_template(SMALL)
    space = template.load_space()
    config = open_run(run_dir, template, strategy, 3, resume)
    loop = EvolveLoop(template, space, make_strategy(strategy, space, 3, {"pop_size": 3}
                                                     if strategy == "ga" else None),
                      runner, ResultsWriter(run_dir, config.run_id), budget, cpu_rows=True)
    loop.restore(read_records(run_dir))
    loop.run()
    return read_records(run_dir)


@pytest.fixture(scope="module")
def resumed_run(tmp_path_factory, runner):
    """A GA run of budget 3, then resumed to budget 6: (its rows after each, its folder). The
    tests below read different properties of the one run (each evaluation takes seconds)."""
    run_dir = tmp_path_factory.mktemp("resumed") / "run"
    first = run(run_dir, runner, budget=3, resume=False)
    second = run(run_dir, runner, budget=6, resume=True)
    return first, second, run_dir


def test_the_budget_is_a_count_of_genome_evaluations(resumed_run):
    first, second, _ = resumed_run
    assert [r["kind"] for r in first] == ["reference", "genome", "genome", "genome"]
    assert sum(r["kind"] == "genome" for r in second) == 6


def test_resume_continues_without_evaluating_any_genome_twice(resumed_run):
    first, second, run_dir = resumed_run
    genomes = [r for r in second if r["kind"] == "genome"]
    assert len(genomes) == 6
    assert len({r["genome_id"] for r in genomes}) == 6
    assert [r["attempt"] for r in second] == list(range(7))
    assert sum(r["kind"] == "reference" for r in second) == 1
    assert second[:4] == first  # earlier rows untouched
    assert read_config(run_dir).template_hash == load_template(SMALL).content_hash


def test_a_resume_with_a_budget_already_spent_says_so_and_adds_no_row(resumed_run, runner, tmp_path):
    _, second, run_dir = resumed_run
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    template = load_template(SMALL)
    space = template.load_space()
    config = open_run(copy, template, "ga", 3, True)
    progress = io.StringIO()
    loop = EvolveLoop(template, space, make_strategy("ga", space, 3, {"pop_size": 3}), runner,
                      ResultsWriter(copy, config.run_id), 4, cpu_rows=True, progress=progress)
    loop.restore(read_records(copy))
    loop.run()
    assert read_records(copy) == second
    assert ("no genome left to evaluate: the run has 6 genome attempts and --budget 4 counts them all"
            in progress.getvalue())


def test_every_row_has_an_explicit_status_lineage_and_score_against_the_default(resumed_run):
    _, records, _ = resumed_run  # rows written before and after the resume
    genomes = [r for r in records if r["kind"] == "genome"]
    assert genomes[0]["operator"] == "default"
    assert genomes[0]["score"] == pytest.approx(1.0, abs=1e-12)
    for r in genomes:
        assert r["status"] == "ok", r["error"]
        assert r["cpu_row"] is True and r["env"]["device_kind"] == "cpu"
        assert r["score"] is not None and r["baseline"].startswith("default genome")
        assert {w["name"] for w in r["workloads"]} == {"b1_ctx1k", "b1_ctx4k", "b4_ctx1k", "b4_ctx4k"}
        assert r["input_seed"] is not None
    told_ids = {r["genome_id"] for r in genomes}
    for r in genomes:
        assert set(r["parent_ids"]) <= told_ids


def test_a_harness_edited_during_the_run_stops_it_and_keeps_no_row_measured_by_it(tmp_path):
    import shutil

    from evaluators.integrity import HARNESS_DIR, HarnessChanged, HarnessIntegrity

    copy = tmp_path / "harness"
    shutil.copytree(HARNESS_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))

    class TamperingRunner(WorkerRunner):  # the real worker; the third evaluation edits the harness
        calls = 0

        def evaluate(self, request):
            result = super().evaluate(request)
            TamperingRunner.calls += 1
            if TamperingRunner.calls == 3:
                (copy / "bench.py").write_text("# timings are whatever I say\n")
            return result

    template = load_template(SMALL)
    space = template.load_space()
    run_dir = tmp_path / "run"
    config = open_run(run_dir, template, "random", 1, False)
    runner = TamperingRunner(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=120)
    try:
        loop = EvolveLoop(template, space, make_strategy("random", space, 1), runner,
                          ResultsWriter(run_dir, config.run_id), 5, cpu_rows=True,
                          integrity=HarnessIntegrity(copy))
        with pytest.raises(HarnessChanged, match="bench.py"):
            loop.run()
    finally:
        runner.stop()
    kinds = [r["kind"] for r in read_records(run_dir)]
    assert kinds == ["reference", "genome"]  # the third evaluation's row was never written


def test_two_workers_evaluate_a_batch_together_and_record_what_one_worker_would(tmp_path, runner):
    from engine.faults import FaultInjector, expected_statuses
    from evaluators.pool import RunnerPool

    template = load_template(SMALL)
    space = template.load_space()

    def run_with(runner, run_dir, injector=None):
        config = open_run(run_dir, template, "random", 4, False)
        loop = EvolveLoop(template, space, make_strategy("random", space, 4), runner,
                          ResultsWriter(run_dir, config.run_id), 4, cpu_rows=True, injector=injector)
        loop.run()
        return read_records(run_dir)

    # A generous limit: the injector draws no hang here, and on a 2-core CI machine two interpreted
    # evaluations side by side (plus a worker restarting after the injected crash) took 15 s once,
    # which turned an ok genome into a timeout row.
    pool = RunnerPool([WorkerRunner(tmp_path / "k", tmp_path / f"w{i}.log", device="cpu", timeout_s=120)
                       for i in range(2)])
    try:
        pool.start()
        both = run_with(pool, tmp_path / "pool", FaultInjector(0.5, 14, "cpu"))  # draws partial, crash
        alone = run_with(runner, tmp_path / "single")  # the module's one worker
    finally:
        pool.stop()
    assert all(r.served >= 2 for r in pool.runners)
    assert [r["attempt"] for r in both] == list(range(len(both)))
    injected = [r for r in both if r["kind"] == "injected"]
    assert injected and all(r["status"] in expected_statuses(r["operator"]) for r in injected)
    genomes = [(r["genome_id"], r["status"]) for r in both if r["kind"] == "genome"]
    assert len(genomes) == 4 and all(status == "ok" for _, status in genomes)
    assert genomes == [(r["genome_id"], r["status"]) for r in alone if r["kind"] == "genome"]


@pytest.mark.parametrize("ask_ahead", [True, False])
def test_a_strategy_that_asks_ahead_gets_its_next_batch_built_while_this_one_is_timed(tmp_path, ask_ahead):
    from engine.strategies.random_search import RandomSearch
    from evaluators.pool import CompileAhead, RunnerPool

    template = load_template(SMALL)
    space = template.load_space()
    calls: list[str] = []

    class Recorded(RandomSearch):
        def ask(self, n):
            calls.append(f"ask {n}")
            return super().ask(n)

        def tell(self, results):
            calls.append(f"tell {len(results)}")

    # Under the interpreter a compile-ahead worker evaluates in full; its count of requests is
    # what is read here (each genome built ahead once, none queued again when its batch is timed).
    ahead = CompileAhead([WorkerRunner(tmp_path / "c", tmp_path / f"c{i}.log", device="cpu", timeout_s=120)
                          for i in range(2)])
    pool = RunnerPool([WorkerRunner(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=120)], lookahead=2)
    run_dir = tmp_path / "run"
    config = open_run(run_dir, template, "random", 7, False)
    try:
        pool.start()
        pool.attach(ahead)
        loop = EvolveLoop(template, space, Recorded(space, 7), pool, ResultsWriter(run_dir, config.run_id), 5,
                          cpu_rows=True, ask_ahead=ask_ahead)
        loop.run()
        ahead.wait_idle()
        built = sum(r.served for r in ahead.runners)
    finally:
        pool.stop()
    genomes = [r for r in read_records(run_dir) if r["kind"] == "genome"]
    assert len(genomes) == 5 and all(r["status"] == "ok" for r in genomes)
    fresh = {r["genome_id"] for r in genomes if r["operator"] != "default"}
    if ask_ahead:  # the default alone, then each batch asked before the one before it is told
        assert calls[:4] == ["tell 1", "ask 2", "ask 2", "tell 1"], calls
        assert len(fresh) == 4 and built == 4  # each built ahead once, none queued again with its batch
    else:  # --no-ask-ahead: every batch told before the next is asked
        assert all(not (a.startswith("ask") and b.startswith("ask")) for a, b in zip(calls, calls[1:])), calls
        assert len(fresh) == 4


def test_a_time_limit_passed_while_a_batch_is_timed_lets_the_batch_asked_ahead_finish_and_asks_no_more(tmp_path):
    import io

    from engine.strategies.random_search import RandomSearch
    from evaluators.pool import CompileAhead, RunnerPool

    template = load_template(SMALL)
    space = template.load_space()
    now = [0.0]  # the loop's clock; the limit (1.0) passes when the first batch of the search is told
    asked: list[dict] = []

    class Timed(RandomSearch):
        def ask(self, n):
            batch = super().ask(n)
            asked.extend(p.params for p in batch)
            return batch

        def tell(self, results):
            if asked:  # not the default's tell, which comes before any ask
                now[0] = 2.0

    ahead = CompileAhead([WorkerRunner(tmp_path / "c", tmp_path / "c0.log", device="cpu", timeout_s=120)])
    pool = RunnerPool([WorkerRunner(tmp_path / "k", tmp_path / "w.log", device="cpu", timeout_s=120)], lookahead=2)
    run_dir = tmp_path / "run"
    config = open_run(run_dir, template, "random", 5, False)
    progress = io.StringIO()
    try:
        pool.start()
        pool.attach(ahead)
        EvolveLoop(template, space, Timed(space, 5), pool, ResultsWriter(run_dir, config.run_id), 8, cpu_rows=True,
                   progress=progress, clock=lambda: now[0], deadline=1.0).run()
    finally:
        pool.stop()
    searched = [r for r in read_records(run_dir) if r["kind"] == "genome" and r["operator"] != "default"]
    # two batches of two were asked (the second while the first was timed); both were evaluated
    # and none after them, although the budget had room for four more
    assert len(asked) == 4
    assert (sorted(json.dumps(json.loads(r["params_json"]), sort_keys=True) for r in searched)
            == sorted(json.dumps(params, sort_keys=True) for params in asked))
    assert "stopping: the time limit passed after 5 of 8 genome attempts" in progress.getvalue()
