"""Uniform random search over the valid genomes of a space."""

from __future__ import annotations

import json
import random
from typing import Any, Sequence

from engine.genome import Space
from engine.strategies.base import Proposal, Told


class RandomSearch:
    name = "random"
    asks_ahead = True  # its draws never depend on results
    MAX_REPEATS = 1000  # draws of genomes already seen before a repeat is proposed anyway

    def __init__(self, space: Space, seed: int):
        self.space = space
        self.rng = random.Random(seed)
        self.seen: set[str] = set()  # genomes proposed or told
        listed = space.listed()  # every valid genome of a space small enough to list, else None
        self._listed = frozenset(_key(p) for p in listed) if listed is not None else None
        self._listed_seen = 0

    def ask(self, n: int) -> list[Proposal]:
        return [Proposal(self._unseen(), "random") for _ in range(n)]

    def tell(self, results: Sequence[Told]) -> None:
        # a resumed run is told its rows first, and its draws, the same from the same seed, then
        # pass over those genomes and go on where the run stopped: proposed again, the loop would
        # skip them as evaluated, and fifty such rounds read as a spent space
        for r in results:
            self._see(_key(r.params))

    def _unseen(self) -> dict[str, Any]:
        """The next draw not proposed or told before; after MAX_REPEATS draws of seen ones (a space
        nearly spent), or at once where every genome of a listed space is seen, the last of them,
        which the loop's count of repeats then ends the run on."""
        spent = self._listed is not None and self._listed_seen == len(self._listed)
        for _ in range(1 if spent else self.MAX_REPEATS):
            params = self.space.sample(self.rng)
            if _key(params) not in self.seen:
                break
        self._see(_key(params))
        return params

    def _see(self, key: str) -> None:
        if key not in self.seen:
            self.seen.add(key)
            self._listed_seen += self._listed is not None and key in self._listed


def _key(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True)
