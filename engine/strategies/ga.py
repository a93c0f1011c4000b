"""A single-objective genetic algorithm on DEAP's operators, with (mu + lambda) elitism.

Genomes are encoded as one integer per gene: the index of its value in the gene's list, so
crossover (uniform) and mutation (uniform integer) respect gene types by construction.
Offspring that violate a declared constraint are re-drawn, never evaluated. A genome told with
rewritten code regions (the LLM operator's) passes its code to the children it is first parent
of: the GA then tunes the genes around the LLM's code. DEAP draws from
Python's global ``random``; its state is swapped in and out around each call so that a seeded
run is reproducible and other users of ``random`` are untouched.
"""

from __future__ import annotations

import math
import random
from contextlib import contextmanager
from typing import Iterator, Sequence

from deap import base, creator, tools

from engine.genome import Space, Value, identity
from engine.strategies.base import Proposal, Told

OPTIONS = {
    "pop_size": ("parents kept between generations (the elite)", 16),
    "cxpb": ("probability that a child comes from crossover of two parents", 0.7),
    "mutpb": ("probability of mutating each gene of a child", None),  # None: 1.5 / genes
    "tournsize": ("tournament size for parent selection", 3),
    "repair_tries": ("re-draws of an invalid child before a random genome replaces it", 30),
    "objectives": ("objectives minimised; more than one selects survivors by NSGA-II", 1),
    "seed_default": ("propose the space's default genome first", True),
}


def _individual_class(k: int):
    """DEAP's creator classes are global; one pair per number of objectives."""
    name = "KGIndividual" if k == 1 else f"KGIndividual{k}"
    if not hasattr(creator, name):
        fitness = "KGFitnessMin" if k == 1 else f"KGFitnessMin{k}"
        creator.create(fitness, base.Fitness, weights=(-1.0,) * k)
        creator.create(name, list, fitness=getattr(creator, fitness), params=None, gid=None, code=None)
    return getattr(creator, name)


_individual_class(1)


class GeneticAlgorithm:
    name = "ga"

    def __init__(self, space: Space, seed: int, **options):
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise ValueError(f"unknown ga options {sorted(unknown)}; known: {sorted(OPTIONS)}")
        opts = {k: options.get(k, default) for k, (_, default) in OPTIONS.items()}
        self.space = space
        self.pop_size = int(opts["pop_size"])
        self.cxpb = float(opts["cxpb"])
        self.mutpb = float(opts["mutpb"]) if opts["mutpb"] is not None else min(1.0, 1.5 / len(space.genes))
        self.tournsize = int(opts["tournsize"])
        self.repair_tries = int(opts["repair_tries"])
        self.k = int(opts["objectives"])
        self.Individual = _individual_class(self.k)
        self.pareto = tools.ParetoFront()  # every non-dominated genome seen (multi-objective)
        self._rng_state = random.Random(seed).getstate()
        self._archive: dict[str, creator.KGIndividual] = {}
        self.population: list = []
        self._asked_default = not opts["seed_default"]

    # -- protocol ----------------------------------------------------------------------------
    def ask(self, n: int) -> list[Proposal]:
        with self._deap_random() as rng:
            out = []
            for _ in range(n):
                if not self._asked_default and not self._archive:
                    self._asked_default = True
                    out.append(Proposal(self.space.default_params(), "seed-default"))
                elif len(self._archive) + len(out) < self.pop_size or len(self.population) < 2:
                    out.append(Proposal(self.space.sample(rng), "random-init"))
                else:
                    out.append(self._offspring(rng))
            return out

    def tell(self, results: Sequence[Told]) -> None:
        for r in results:
            ind = self._encode(r.params)
            values = r.objectives if self.k > 1 else (r.objective,)
            ok = values is not None and len(values) == self.k and all(
                v is not None and math.isfinite(v) for v in values)
            ind.fitness.values = tuple(values) if ok else (math.inf,) * self.k
            ind.gid = r.genome_id
            ind.code = dict(r.code) if r.code else None
            self._archive[r.genome_id] = ind
        feasible = [i for i in self._archive.values() if math.isfinite(i.fitness.values[0])]
        if self.k == 1:
            self.population = sorted(feasible, key=lambda i: i.fitness.values[0])[: self.pop_size]
        else:
            self.population = tools.selNSGA2(feasible, min(self.pop_size, len(feasible)))
            self.pareto.update(feasible)

    # -- operators ---------------------------------------------------------------------------
    def _offspring(self, rng: random.Random) -> Proposal:
        seen = {identity(self._decode(i), i.code) for i in self._archive.values()}
        up = [len(g.values) - 1 for g in self.space.genes]
        for _ in range(self.repair_tries):
            if self.k == 1:
                p1, p2 = tools.selTournament(self.population, 2, self.tournsize)
            else:  # survivors are already the NSGA-II elite: parents uniformly among them
                p1, p2 = rng.sample(self.population, 2)
            a, b = self.Individual(p1), self.Individual(p2)
            a.code = p1.code  # the child is built in place of its first parent: it keeps that code
            op, parents = "mutation", (p1.gid,)
            if rng.random() < self.cxpb:
                tools.cxUniform(a, b, indpb=0.5)
                op, parents = "crossover+mutation", (p1.gid, p2.gid)
            tools.mutUniformInt(a, low=[0] * len(a), up=up, indpb=self.mutpb)
            params = self._decode(a)
            if self.space.is_valid(params) and identity(params, a.code) not in seen:
                return Proposal(params, op, tuple(dict.fromkeys(parents)), a.code)
        return Proposal(self.space.sample(rng), "random-repair")

    def _encode(self, params: dict[str, Value]):
        return self.Individual(g.index(params[g.name]) for g in self.space.genes)

    def _decode(self, ind) -> dict[str, Value]:
        return {g.name: g.values[i] for g, i in zip(self.space.genes, ind)}

    @contextmanager
    def _deap_random(self) -> Iterator[random.Random]:
        outer = random.getstate()
        random.setstate(self._rng_state)
        try:
            yield random  # type: ignore[misc]
        finally:
            self._rng_state = random.getstate()
            random.setstate(outer)
