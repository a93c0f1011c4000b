"""Uniform random search over the valid genomes of a space."""

from __future__ import annotations

import random
from typing import Sequence

from engine.genome import Space
from engine.strategies.base import Proposal, Told


class RandomSearch:
    name = "random"
    asks_ahead = True  # its draws never depend on results

    def __init__(self, space: Space, seed: int):
        self.space = space
        self.rng = random.Random(seed)

    def ask(self, n: int) -> list[Proposal]:
        return [Proposal(self.space.sample(self.rng), "random") for _ in range(n)]

    def tell(self, results: Sequence[Told]) -> None:
        pass  # memoryless; the loop skips genomes it has already evaluated
