"""Multi-objective mode: objectives derived from records, Pareto fronts, NSGA-II selection."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import UserError
from engine.genome import Genome
from engine.objectives import evaluate, parse_objectives, pareto_front
from engine.space_file import load_space
from engine.strategies import Told, make_strategy

REPO = Path(__file__).resolve().parents[2]
SPACE = load_space(REPO / "tests" / "fixtures" / "genomes" / "strategy_space.toml")


def record(times: dict[str, float], err: float = 0.003, status: str = "ok") -> dict:
    def parse(name):
        b, c = name.split("_")
        return int(b[1:]), int(c[3:-1]) * 1024
    return {"status": status, "verify": [{"shape": "s", "out_rel_l2": err, "lse_rel_l2": 1e-7}],
            "workloads": [{"name": n, "batch": parse(n)[0], "context": parse(n)[1], "median_us": t}
                          for n, t in times.items()]}


BASE = {"b1_ctx4k": 20.0, "b1_ctx128k": 20.0, "b64_ctx4k": 200.0, "b64_ctx128k": 200.0}


def test_regime_objectives_take_only_their_workloads():
    r = record({"b1_ctx4k": 10.0, "b1_ctx128k": 10.0, "b64_ctx4k": 400.0, "b64_ctx128k": 400.0}, err=0.004)
    small, large, long_ctx, err = evaluate(("small_batch", "large_batch", "long_context", "error"), r, BASE)
    assert small == pytest.approx(0.5) and large == pytest.approx(2.0)
    assert long_ctx == pytest.approx(1.0)  # sqrt(0.5 * 2)
    assert err == 0.004
    assert evaluate(("score",), record(BASE, status="incorrect"), BASE) is None


def test_the_pareto_front_keeps_exactly_the_non_dominated_points():
    points = [("a", (1.0, 3.0)), ("b", (2.0, 2.0)), ("c", (3.0, 1.0)), ("d", (3.0, 3.0)), ("e", (2.0, 2.5))]
    assert [gid for gid, _ in pareto_front(points)] == ["a", "b", "c"]


def test_an_objective_the_records_do_not_carry_is_a_user_error():
    with pytest.raises(UserError, match="speed"):
        parse_objectives("score,speed")


def test_ga_with_two_objectives_selects_survivors_by_nsga2_and_keeps_a_pareto_archive():
    ga = make_strategy("ga", SPACE, 0, {"objectives": 2, "pop_size": 8})
    told = []
    for _ in range(30):
        (p,) = ga.ask(1)
        assert SPACE.is_valid(p.params)
        vec = (p.params["TOPK_TILE"] / 16.0, p.params["NUM_STAGES"] + (p.params["COMBINE"] == "fused"))
        gid = Genome.make(SPACE, p.params, "t").genome_id
        ga.tell([Told(gid, p.params, vec[0], vec)])
        told.append((gid, vec))
    front = {gid for gid, _ in pareto_front(told)}
    assert {ind.gid for ind in ga.pareto} == front
    assert 0 < len(ga.population) <= 8


def test_evolve_with_several_objectives_writes_the_front(tmp_path):
    run = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "engine", "evolve", "tests/fixtures/templates/sparse_mla_small.triton.j2",
                           "--budget", "3", "--strategy", "nsga2", "--objectives", "score,error", "--device", "cpu",
                           "--out", str(run)], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    front = json.loads((run / "pareto.json").read_text())
    assert front["objectives"] == ["score", "error"] and front["front"]
    assert all(set(p["objectives"]) == {"score", "error"} for p in front["front"])
    assert "Pareto front over score, error" in done.stdout


def test_the_e2e_objective_is_the_decode_layers_time_over_the_baselines_and_leaves_the_score_alone():
    base = record({"b1_ctx4k": 10.0, "b64_ctx32k": 50.0})
    base["e2e"] = [{"name": "b1_ctx32k", "step_us": 120.0}, {"name": "b64_ctx32k", "step_us": 200.0}]
    from engine.scoring import e2e_times, workload_times

    baseline = workload_times(base) | e2e_times(base)
    faster_alone = record({"b1_ctx4k": 5.0, "b64_ctx32k": 25.0})
    faster_alone["e2e"] = [{"name": "b1_ctx32k", "step_us": 120.0}, {"name": "b64_ctx32k", "step_us": 200.0}]
    assert evaluate(("score", "e2e"), faster_alone, baseline) == pytest.approx((0.5, 1.0))
    slower_layer = {**faster_alone, "e2e": [{"name": "b1_ctx32k", "step_us": 240.0},
                                            {"name": "b64_ctx32k", "step_us": 200.0}]}
    assert evaluate(("e2e",), slower_layer, baseline) == pytest.approx((2 ** 0.5,))
    assert evaluate(("e2e",), faster_alone, workload_times(base)) is None  # a run without --e2e


def test_the_e2e_objective_needs_a_run_made_with_e2e(tmp_path):
    done = subprocess.run([sys.executable, "-m", "engine", "evolve", "tests/fixtures/templates/sparse_mla_small.triton.j2",
                           "--objectives", "score,e2e", "--device", "cpu", "--out", str(tmp_path / "run")],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "--objectives e2e: the run times no decode layer; pass --e2e" in done.stderr
    assert not (tmp_path / "run").exists()
