"""Search strategies. Each speaks ask/tell and never touches a device."""

from functools import partial

from engine.strategies.base import OPTUNA_STRATEGIES, Proposal, Strategy, Told
from engine.strategies.exhaustive import ExhaustiveSweep
from engine.strategies.ga import GeneticAlgorithm
from engine.strategies.random_search import RandomSearch


def _optuna(sampler: str, space, seed: int, directions: int = 1, **options):
    from engine.strategies.optuna_strategy import OptunaStrategy  # optuna only when asked for

    return OptunaStrategy(space, seed, sampler=sampler, directions=directions, **options)


STRATEGIES = {"random": RandomSearch, "ga": GeneticAlgorithm, "exhaustive": ExhaustiveSweep,
              **{name: partial(_optuna, name) for name in OPTUNA_STRATEGIES}}

__all__ = ["Proposal", "Strategy", "Told", "STRATEGIES", "OPTUNA_STRATEGIES", "make_strategy"]


def make_strategy(name: str, space, seed: int, options: dict | None = None) -> Strategy:
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; choose from {sorted(STRATEGIES)}")
    return STRATEGIES[name](space, seed, **(options or {}))
