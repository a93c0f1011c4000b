"""Every valid genome once, in a seeded random order: the sweep that replays compare against.

Any prefix of the order is a uniform sample without replacement, so a sweep cut short by its
budget is still an unbiased slice of the space.
"""

from __future__ import annotations

import random
from typing import Sequence

from engine.genome import Space, canonical_json
from engine.strategies.base import Proposal, Told


class ExhaustiveSweep:
    name = "exhaustive"
    asks_ahead = True  # its order is fixed at the start

    def __init__(self, space: Space, seed: int):
        self._order = list(space.valid_points())
        random.Random(seed).shuffle(self._order)
        self._next = 0
        self._done: set[str] = set()  # told genomes (a resumed run tells its earlier rows first)

    def ask(self, n: int) -> list[Proposal]:
        out = []
        while len(out) < n and self._next < len(self._order):
            params = self._order[self._next]
            self._next += 1
            if canonical_json(params) not in self._done:
                out.append(Proposal(params, "sweep"))
        if not out:
            # Spent: repeat the last one; the loop sees only already-evaluated genomes and stops.
            return [Proposal(self._order[-1], "sweep")] * n
        return out

    def tell(self, results: Sequence[Told]) -> None:
        self._done.update(canonical_json(r.params) for r in results)
