"""Search strategies: make_strategy, random search and the DEAP genetic algorithm (engine/strategies)."""

from __future__ import annotations

import itertools
import math
import random
from pathlib import Path
from typing import Callable

import pytest

from engine.genome import Genome
from engine.space_file import load_space
from engine.strategies import STRATEGIES, Proposal, Told, make_strategy
from engine.strategies.ga import GeneticAlgorithm
from engine.strategies.random_search import RandomSearch

REPO = Path(__file__).resolve().parents[2]
HASH = "test-template-hash"

# A frozen space: the objectives below name its genes, so the real space may grow freely.
SPACE = load_space(REPO / "tests" / "fixtures" / "genomes" / "strategy_space.toml")
ALL_VALID = [p for p in (dict(zip(SPACE.gene_names, values))
                         for values in itertools.product(*(g.values for g in SPACE.genes)))
             if SPACE.is_valid(p)]


def gid(params) -> str:
    return Genome.make(SPACE, params, HASH).genome_id


def told(params, objective) -> Told:
    return Told(gid(params), dict(params), objective)


def near_32_few_stages(p) -> float:
    """Lower is better; optimum TOPK_TILE == 32 and NUM_STAGES == 1 (many genomes reach it)."""
    return abs(p["TOPK_TILE"] - 32) + p["NUM_STAGES"]


def unique_optimum(p) -> float:
    """Lower is better; every gene matters and exactly one valid genome is optimal."""
    return (abs(p["TOPK_TILE"] - 32) / 16 + p["NUM_STAGES"] + (p["NUM_SPLITS"] != 8)
            + (p["NUM_WARPS"] != 4) + 2 * (p["HEADS_PER_PROGRAM"] != 32) + (p["COMBINE"] != "fused")
            + (not p["PREFETCH_INDICES"]))


def drive(strategy, objective: Callable, budget: int) -> list[tuple[Proposal, float]]:
    """The evolve loop's protocol without a device: ask(1), skip repeats (telling the earlier
    result again), evaluate, tell. Returns the fresh evaluations in order."""
    results: dict[str, float] = {}
    history = []
    asks = 0
    while len(results) < budget:
        asks += 1
        assert asks < 20 * budget, "strategy keeps proposing evaluated genomes"
        (proposal,) = strategy.ask(1)
        genome_id = gid(proposal.params)
        if genome_id in results:
            strategy.tell([Told(genome_id, proposal.params, results[genome_id])])
            continue
        results[genome_id] = objective(proposal.params)
        history.append((proposal, results[genome_id]))
        strategy.tell([Told(genome_id, proposal.params, results[genome_id])])
    return history


# -- make_strategy ----------------------------------------------------------------------------

def test_make_strategy_builds_each_registered_strategy():
    assert set(STRATEGIES) == {"random", "ga", "exhaustive", "tpe", "gp", "cmaes", "nsga2", "nsga3"}
    for name in ("tpe", "gp", "cmaes", "nsga2", "nsga3"):
        assert make_strategy(name, SPACE, 0).name == name
    assert isinstance(make_strategy("random", SPACE, 0), RandomSearch)
    ga = make_strategy("ga", SPACE, 0, {"pop_size": 8})
    assert isinstance(ga, GeneticAlgorithm)
    assert ga.pop_size == 8
    assert make_strategy("ga", SPACE, 0).name == "ga"
    assert make_strategy("random", SPACE, 0).name == "random"


def test_make_strategy_with_unknown_name_raises_value_error_naming_it():
    with pytest.raises(ValueError) as info:
        make_strategy("simulated-annealing", SPACE, 0)
    assert "simulated-annealing" in str(info.value)
    assert "ga" in str(info.value) and "random" in str(info.value)


def test_genetic_algorithm_with_unknown_option_raises_value_error_naming_it():
    with pytest.raises(ValueError, match="population"):
        GeneticAlgorithm(SPACE, 0, population=10)
    with pytest.raises(ValueError, match="bogus"):
        make_strategy("ga", SPACE, 0, {"bogus": 1, "pop_size": 4})


def test_genetic_algorithm_default_mutation_rate_is_one_and_a_half_genes():
    ga = GeneticAlgorithm(SPACE, 0)
    assert ga.mutpb == pytest.approx(1.5 / len(SPACE.genes))
    assert GeneticAlgorithm(SPACE, 0, mutpb=0.25).mutpb == 0.25


# -- exhaustive sweep -------------------------------------------------------------------------

def test_exhaustive_sweep_proposes_every_valid_genome_once_then_only_repeats():
    sweep = make_strategy("exhaustive", SPACE, 3)
    first = [p.params for p in sweep.ask(7)]
    rest = [p.params for p in sweep.ask(len(ALL_VALID))]
    seen = [gid(p) for p in first + rest]
    assert len(seen) == len(ALL_VALID) == len(set(seen))
    assert set(seen) == {gid(p) for p in ALL_VALID}
    assert {gid(p.params) for p in sweep.ask(4)} <= set(seen)  # spent: nothing fresh


def test_exhaustive_sweep_order_is_seeded_and_batch_size_does_not_change_it():
    one_by_one = [make_strategy("exhaustive", SPACE, 9)]
    a = [one_by_one[0].ask(1)[0].params for _ in range(12)]
    b = [p.params for p in make_strategy("exhaustive", SPACE, 9).ask(12)]
    c = [p.params for p in make_strategy("exhaustive", SPACE, 10).ask(12)]
    assert a == b and a != c


def test_a_sweep_cut_short_by_its_budget_in_the_loop_stops_on_the_spent_space():
    """drive() with a budget beyond the space would never end; the loop's guard is the
    MAX_DUPLICATE_ROUNDS stop, and a full drive covers the whole space."""
    history = drive(make_strategy("exhaustive", SPACE, 1), near_32_few_stages, len(ALL_VALID))
    assert len(history) == len(ALL_VALID)


# -- random search ----------------------------------------------------------------------------

def test_random_search_proposals_are_valid_members_of_the_real_space():
    rs = make_strategy("random", SPACE, 11)
    proposals = rs.ask(300)
    assert len(proposals) == 300
    for p in proposals:
        assert p.operator == "random"
        assert p.parent_ids == ()
        assert SPACE.violations(p.params) == [], p.params
        Genome.make(SPACE, p.params, HASH)
    # it explores: many distinct genomes and every value of every gene appears
    assert len({gid(p.params) for p in proposals}) > 150
    for gene in SPACE.genes:
        assert {gene.index(p.params[gene.name]) for p in proposals} == set(range(len(gene.values)))


def test_random_search_is_reproducible_by_seed():
    a = [p.params for p in make_strategy("random", SPACE, 5).ask(20)]
    b = [p.params for p in make_strategy("random", SPACE, 5).ask(20)]
    c = [p.params for p in make_strategy("random", SPACE, 6).ask(20)]
    assert a == b
    assert a != c


def test_random_search_draws_do_not_depend_on_the_results_told():
    rs = make_strategy("random", SPACE, 5)
    first = rs.ask(3)
    rs.tell([told(p.params, 1.0) for p in first])
    fresh = make_strategy("random", SPACE, 5)
    fresh.ask(3)
    assert [p.params for p in rs.ask(5)] == [p.params for p in fresh.ask(5)]


# -- genetic algorithm: protocol --------------------------------------------------------------

def test_ga_first_proposal_is_the_space_default_seed():
    ga = make_strategy("ga", SPACE, 0)
    (first,) = ga.ask(1)
    assert first.operator == "seed-default"
    assert first.params == SPACE.default_params()
    assert first.parent_ids == ()
    (second,) = ga.ask(1)
    assert second.operator != "seed-default"


def test_ga_does_not_propose_the_default_after_results_were_told():
    # on --resume the earlier records are told before the first ask
    ga = make_strategy("ga", SPACE, 0)
    ga.tell([told(SPACE.default_params(), 1.0)])
    assert all(p.operator != "seed-default" for p in ga.ask(5))


def test_ga_fills_its_first_population_with_valid_random_genomes():
    ga = make_strategy("ga", SPACE, 1, {"pop_size": 6})
    proposals = ga.ask(6)
    assert [p.operator for p in proposals] == ["seed-default"] + ["random-init"] * 5
    assert all(SPACE.is_valid(p.params) for p in proposals)


def test_ga_offspring_are_valid_new_and_descend_from_told_genomes():
    ga = make_strategy("ga", SPACE, 3, {"pop_size": 8})
    told_ids: set[str] = set()
    told_json: set[str] = set()
    first = ga.ask(8)
    results = [told(p.params, near_32_few_stages(p.params)) for p in first]
    ga.tell(results)
    told_ids |= {r.genome_id for r in results}
    told_json |= {Genome.make(SPACE, p.params, HASH).params_json for p in first}

    offspring_seen = 0
    for _ in range(40):
        (child,) = ga.ask(1)
        assert SPACE.violations(child.params) == [], child
        if child.operator in ("mutation", "crossover+mutation"):
            offspring_seen += 1
            assert child.parent_ids, child
            assert set(child.parent_ids) <= told_ids, child.parent_ids
            assert len(child.parent_ids) == len(set(child.parent_ids))
            assert len(child.parent_ids) == 1 if child.operator == "mutation" else 1 <= len(child.parent_ids) <= 2
            assert Genome.make(SPACE, child.params, HASH).params_json not in told_json
        else:
            assert child.operator == "random-repair"
        result = told(child.params, near_32_few_stages(child.params))
        ga.tell([result])
        told_ids.add(result.genome_id)
        told_json.add(Genome.make(SPACE, child.params, HASH).params_json)
    assert offspring_seen >= 30


def test_ga_parents_come_from_the_population_of_successful_genomes():
    ga = make_strategy("ga", SPACE, 4, {"pop_size": 4})
    firsts = ga.ask(6)
    good, bad = firsts[:3], firsts[3:]
    ga.tell([told(p.params, float(i)) for i, p in enumerate(good)])
    ga.tell([told(p.params, None) for p in bad])
    good_ids = {gid(p.params) for p in good}
    for child in ga.ask(20):
        assert set(child.parent_ids) <= good_ids


def test_ga_children_keep_the_code_of_their_first_parent_so_the_ga_tunes_genes_around_an_llm_rewrite():
    ga = make_strategy("ga", SPACE, 5, {"pop_size": 4})
    firsts = ga.ask(4)
    code = {"tile_update": "        pass\n"}
    results = [told(p.params, float(i)) for i, p in enumerate(firsts)]
    best = firsts[0].params
    coded = Told(Genome.make(SPACE, best, HASH, code, {"tile_update": ""}).genome_id, dict(best), -1.0, code=code)
    ga.tell(results + [coded])
    children = ga.ask(30)
    with_code = [c for c in children if c.code]
    assert with_code and all(c.code == code and coded.genome_id == c.parent_ids[0] for c in with_code)
    assert all(not c.code for c in children if c.parent_ids and c.parent_ids[0] != coded.genome_id)
    # never an evaluated pair of genes and code (the rewrite with other genes is new)
    evaluated = {(gid(p.params), "") for p in firsts} | {(gid(best), str(code))}
    assert all((gid(c.params), str(c.code or "")) not in evaluated for c in children if c.parent_ids)


def test_ga_same_seed_gives_the_same_proposals():
    a = drive(make_strategy("ga", SPACE, 42), near_32_few_stages, 40)
    b = drive(make_strategy("ga", SPACE, 42), near_32_few_stages, 40)
    assert [(p.params, p.operator, p.parent_ids) for p, _ in a] == \
           [(p.params, p.operator, p.parent_ids) for p, _ in b]


def test_ga_different_seed_gives_different_proposals():
    a = drive(make_strategy("ga", SPACE, 42), near_32_few_stages, 40)
    b = drive(make_strategy("ga", SPACE, 43), near_32_few_stages, 40)
    assert [p.params for p, _ in a] != [p.params for p, _ in b]
    assert a[0][0].params == b[0][0].params == SPACE.default_params()  # both seed with the default


def test_ga_reproducibility_survives_other_users_of_global_random():
    ga_a = make_strategy("ga", SPACE, 9)
    ga_b = make_strategy("ga", SPACE, 9)
    seq_a, seq_b = [], []
    for step in range(30):
        random.seed(step)  # someone else reseeds the global generator between calls
        (pa,) = ga_a.ask(1)
        random.random()
        (pb,) = ga_b.ask(1)
        seq_a.append(pa.params)
        seq_b.append(pb.params)
        ga_a.tell([told(pa.params, near_32_few_stages(pa.params))])
        ga_b.tell([told(pb.params, near_32_few_stages(pb.params))])
    assert seq_a == seq_b


def test_ga_leaves_the_global_random_state_untouched():
    ga = make_strategy("ga", SPACE, 0, {"pop_size": 4})
    random.seed(12345)
    for _ in range(3):
        state = random.getstate()
        proposals = ga.ask(6)  # seed, random-init and offspring draws
        assert random.getstate() == state
        ga.tell([told(p.params, near_32_few_stages(p.params)) for p in proposals])
        assert random.getstate() == state
    assert any(p.operator in ("mutation", "crossover+mutation") for p in proposals)
    expected = random.Random(12345).random()
    assert random.random() == expected


def test_ga_failures_never_enter_the_population():
    ga = make_strategy("ga", SPACE, 2, {"pop_size": 5})
    proposals = ga.ask(12)
    ok = proposals[::2]
    failed = proposals[1::2]
    ga.tell([told(p.params, None) for p in failed])
    assert ga.population == []
    ga.tell([told(p.params, float(i)) for i, p in enumerate(ok)])
    ga.tell([told(p.params, math.nan) for p in failed[:1]])
    ga.tell([told(p.params, math.inf) for p in failed[1:2]])
    failed_ids = {gid(p.params) for p in failed}
    ok_ids = {gid(p.params) for p in ok}
    pop_ids = [ind.gid for ind in ga.population]
    assert len(pop_ids) == 5
    assert not set(pop_ids) & failed_ids
    assert set(pop_ids) <= ok_ids
    assert all(math.isfinite(ind.fitness.values[0]) for ind in ga.population)
    # the elite, best first
    assert [ind.fitness.values[0] for ind in ga.population] == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_ga_keeps_asking_random_genomes_while_everything_fails():
    ga = make_strategy("ga", SPACE, 2, {"pop_size": 3})
    for _ in range(10):
        (p,) = ga.ask(1)
        assert SPACE.is_valid(p.params)
        assert p.operator in ("seed-default", "random-init")
        ga.tell([told(p.params, None)])
        assert ga.population == []


def test_ga_accepts_results_of_genomes_it_did_not_propose():
    ga = make_strategy("ga", SPACE, 8, {"pop_size": 4})
    foreign = ALL_VALID[::200][:6]
    ga.tell([told(p, near_32_few_stages(p)) for p in foreign])
    assert len(ga.population) == 4
    ga_ids = {ind.gid for ind in ga.population}
    assert ga_ids <= {gid(p) for p in foreign}
    for child in ga.ask(10):
        assert SPACE.is_valid(child.params)
        assert set(child.parent_ids) <= ga_ids


def test_ga_retelling_a_genome_replaces_its_result():
    ga = make_strategy("ga", SPACE, 8, {"pop_size": 4})
    p = SPACE.default_params()
    ga.tell([told(p, 5.0)])
    ga.tell([told(p, 1.0)])
    assert [ind.fitness.values[0] for ind in ga.population] == [1.0]


# -- genetic algorithm: search quality --------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_ga_finds_the_brute_force_optimum_within_80_evaluations(seed):
    optimum = min(near_32_few_stages(p) for p in ALL_VALID)
    assert optimum == 1
    history = drive(make_strategy("ga", SPACE, seed), near_32_few_stages, 80)
    assert len(history) == 80
    assert min(score for _, score in history) == optimum
    assert all(SPACE.is_valid(p.params) for p, _ in history)


def test_ga_beats_random_search_with_the_same_budget_on_a_unique_optimum():
    optimum = min(unique_optimum(p) for p in ALL_VALID)
    assert [unique_optimum(p) for p in ALL_VALID].count(optimum) == 1
    seeds = range(12)
    ga_best = [min(s for _, s in drive(make_strategy("ga", SPACE, sd), unique_optimum, 80)) for sd in seeds]
    rs_best = [min(s for _, s in drive(make_strategy("random", SPACE, sd), unique_optimum, 80)) for sd in seeds]
    assert sum(ga_best) < sum(rs_best)
    assert sum(b == optimum for b in ga_best) >= len(seeds) // 2
    assert sum(b == optimum for b in ga_best) > sum(b == optimum for b in rs_best)


@pytest.mark.parametrize("seed", range(4))
def test_ga_improves_on_its_first_generation(seed):
    history = drive(make_strategy("ga", SPACE, seed, {"pop_size": 16}), unique_optimum, 80)
    first_generation = min(s for _, s in history[:16])
    later = min(s for _, s in history[16:])
    assert later < first_generation


def test_exhaustive_sweep_resumed_skips_what_it_was_told_and_keeps_its_order():
    first = make_strategy("exhaustive", SPACE, 4)
    done = [p.params for p in first.ask(40)]
    resumed = make_strategy("exhaustive", SPACE, 4)
    resumed.tell([told(p, 1.0) for p in done])  # what restore() does with the earlier rows
    assert [p.params for p in resumed.ask(5)] == [p.params for p in first.ask(5)]


def test_random_search_resumed_from_its_rows_goes_on_where_the_run_stopped():
    """A resumed run makes its strategy afresh from the same seed and tells it the run's rows: the
    draws then pass over those genomes (which the loop would skip as evaluated, fifty rounds of them
    reading as a spent space) and continue as the run would have, without repeating one."""
    uninterrupted = RandomSearch(SPACE, 3)
    first = [p.params for p in uninterrupted.ask(12)]
    later = [p.params for p in uninterrupted.ask(12)]
    resumed = RandomSearch(SPACE, 3)
    resumed.tell([told(p, 1.0) for p in first])
    assert [p.params for p in resumed.ask(12)] == later
    assert len({gid(p) for p in first + later}) == 24  # no genome proposed twice in one run
