"""The strategy protocol.

Call order over a run: the loop calls ``ask(n)`` for up to n proposals, evaluates those it has
not seen, then calls ``tell`` with one ``Told`` per proposal (a proposal already evaluated is
told its earlier result). On ``--resume`` every earlier record is told first, in attempt
order, before the first ``ask``; a strategy must accept results of genomes it did not propose.
``objective`` is lower-is-better and ``None`` for a failed evaluation.

A strategy with ``asks_ahead = True`` may be asked for its next batch before the batch before it
is told (the loop then builds the next batch's kernels while this one is timed); one without it
(a generation of the genetic algorithm needs the last one's results, the LLM reads them) is
always told before it is asked again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Protocol, Sequence

from engine.genome import Value


# The strategies that are Optuna samplers (engine/strategies/optuna_strategy.py), named here so that
# the CLI and the registry know them without importing optuna.
OPTUNA_STRATEGIES = ("tpe", "gp", "cmaes", "nsga2", "nsga3")


class StorageError(ValueError):
    """The study storage a user named cannot be opened (unknown database kind, missing driver,
    unreachable server, unwritable path); raised before any trial is asked."""


@dataclass(frozen=True)
class Proposal:
    params: dict[str, Value]
    operator: str                  # "random", "crossover+mutation", "seed-default", ...
    parent_ids: tuple[str, ...] = ()
    code: Mapping[str, str] | None = None  # new text for code regions (the LLM operator's), by region


@dataclass(frozen=True)
class Told:
    genome_id: str
    params: dict[str, Value]
    objective: float | None
    objectives: tuple[float, ...] | None = None  # multi-objective runs; None entries mean failed
    # what the loop recorded beyond the objective (status, error, operator, times per workload,
    # registers): the LLM operator shows it to the model; the numeric strategies ignore it
    detail: Mapping[str, Any] | None = None
    code: Mapping[str, str] | None = None  # the genome's rewritten code regions, if any


class Strategy(Protocol):
    name: str

    def ask(self, n: int) -> list[Proposal]: ...

    def tell(self, results: Sequence[Told]) -> None: ...
