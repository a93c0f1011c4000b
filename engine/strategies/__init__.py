"""Search strategies. Each speaks ask/tell and never touches a device."""

from engine.strategies.base import Proposal, Strategy, Told
from engine.strategies.ga import GeneticAlgorithm
from engine.strategies.random_search import RandomSearch

STRATEGIES = {"random": RandomSearch, "ga": GeneticAlgorithm}

__all__ = ["Proposal", "Strategy", "Told", "STRATEGIES", "make_strategy"]


def make_strategy(name: str, space, seed: int, options: dict | None = None) -> Strategy:
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; choose from {sorted(STRATEGIES)}")
    return STRATEGIES[name](space, seed, **(options or {}))
