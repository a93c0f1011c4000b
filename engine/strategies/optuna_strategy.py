"""Optuna samplers (TPE, GP, CMA-ES, NSGA-II, NSGA-III) behind the project's ask/tell protocol.

Every gene is an Optuna categorical over its values except integer ranges, which stay ordered
(IntDistribution over the value's index) so that TPE, GP and CMA-ES can exploit order.
A sampled point that violates a declared constraint is told to the study as FAIL and drawn
again; it is never proposed. A failed evaluation (compile error, incorrect, timeout) is told as
FAIL, and the strategy never proposes a genome it has seen. Storage: in memory, a journal file
(optuna-dashboard opens it), or any database URL Optuna accepts (PostgreSQL for studies shared
by several machines).
"""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path
from typing import Sequence

import optuna
from optuna.distributions import CategoricalDistribution, IntDistribution
from optuna.trial import TrialState, create_trial

from engine.genome import Space, Value, canonical_json
from engine.strategies.base import OPTUNA_STRATEGIES, Proposal, StorageError, Told

OPTIONS = {
    "storage": ("journal file path or database URL; in memory when absent", None),
    "study_name": ("name of the study in the storage", "kernel-genome"),
    "n_startup_trials": ("random trials before the model takes over (tpe, gp)", 10),
    "population_size": ("population of nsga2/nsga3", 16),
    "max_redraws": ("constraint-violating draws before a uniform valid genome is used", 200),
}

optuna.logging.set_verbosity(optuna.logging.WARNING)


_NOT_YET = object()  # the keyed listing of the space, before its first repair


class OptunaStrategy:
    # Asked before its last trials are told, the sampler draws beside them as pending trials (a
    # draw of a pending genome is drawn again): the next batch is drawn without the last one's
    # results, as if the two were one batch twice as wide.
    asks_ahead = True

    def __init__(self, space: Space, seed: int, sampler: str = "tpe", directions: int = 1, **options):
        if sampler not in OPTUNA_STRATEGIES:
            raise ValueError(f"unknown optuna sampler {sampler!r}; choose from {OPTUNA_STRATEGIES}")
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise ValueError(f"unknown {sampler} options {sorted(unknown)}; known: {sorted(OPTIONS)}")
        opts = {k: options.get(k, default) for k, (_, default) in OPTIONS.items()}
        self.name = sampler
        self.space = space
        self.max_redraws = int(opts["max_redraws"])
        self.distributions = {g.name: _distribution(g) for g in space.genes}
        self.study = optuna.create_study(
            study_name=opts["study_name"], storage=_storage(opts["storage"]), load_if_exists=True,
            sampler=_sampler(sampler, seed, int(opts["n_startup_trials"]), int(opts["population_size"])),
            directions=["minimize"] * directions)
        if len(self.study.directions) != directions:  # a stored study keeps the objectives it began with
            raise StorageError(f"its study {opts['study_name']!r} minimises {len(self.study.directions)} "
                               f"objective(s), not the {directions} asked for")
        self.directions = directions
        self._pending: dict[str, optuna.trial.Trial] = {}
        self._known: dict[str, list[float] | None] = {}  # canonical params -> values told
        self._rng = random.Random(seed)
        self._keyed: object = _NOT_YET
        self._learn_stored_trials()

    # -- protocol ----------------------------------------------------------------------------
    def ask(self, n: int) -> list[Proposal]:
        return [self._ask_one() for _ in range(n)]

    def tell(self, results: Sequence[Told]) -> None:
        for r in results:
            key = canonical_json(r.params)
            values = self._values(r)
            stored = key in self._known
            self._known[key] = values
            trial = self._pending.pop(key, None)
            if trial is not None:
                self.study.tell(trial, values, state=TrialState.COMPLETE if values else TrialState.FAIL)
            elif not stored:  # evaluated elsewhere (the loop's default genome, a fresh storage): teach the model
                self.study.add_trial(create_trial(
                    params=self._encode(r.params), distributions=self.distributions,
                    values=values, state=TrialState.COMPLETE if values else TrialState.FAIL))

    # -- pieces ------------------------------------------------------------------------------
    def _learn_stored_trials(self) -> None:
        """A study loaded from storage (--resume, or a study shared by several machines) already
        holds its evaluated genomes: remember them, so that telling them again on resume adds no
        second copy to the model and none is proposed again."""
        for t in self.study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.FAIL)):
            if set(t.params) != set(self.distributions):
                continue
            try:
                params = self._decode(t.params)
            except (KeyError, IndexError, ValueError):
                continue  # a study of another space version
            if self.space.is_valid(params):
                self._known[canonical_json(params)] = list(t.values) if t.state == TrialState.COMPLETE else None

    def _ask_one(self) -> Proposal:
        """One model-driven draw. A draw outside the constraints is told FAIL (the model learns
        the region is infeasible) and repaired to the nearest valid unseen genome; a draw of a
        genome already evaluated is told its known result and drawn again."""
        for _ in range(self.max_redraws):
            trial = self.study.ask(self.distributions)
            params = self._decode(trial.params)
            key = canonical_json(params)
            if key in self._known or key in self._pending:
                known = self._known.get(key)
                self.study.tell(trial, known, state=TrialState.COMPLETE if known else TrialState.FAIL)
                continue
            if not self.space.is_valid(params):
                self.study.tell(trial, state=TrialState.FAIL)  # never compiled, never proposed
                repaired = self._repair(params)
                if repaired is None:
                    continue
                return Proposal(repaired, f"{self.name}-repair")
            self._pending[key] = trial
            return Proposal(params, self.name)
        return Proposal(self.space.sample(self._rng), f"{self.name}-fallback-random")

    def _repair(self, params: dict[str, Value]) -> dict[str, Value] | None:
        """The valid, unseen genome that differs from ``params`` in the fewest genes (ties at
        random): among all valid genomes when the space can be listed, else among 200 draws."""
        pool = self._listed_with_keys()
        if pool is None:
            pool = [(canonical_json(c), c) for c in (self.space.sample(self._rng) for _ in range(200))]
        candidates = []
        for key, cand in pool:
            if key not in self._known and key not in self._pending:
                candidates.append((sum(cand[g] != params[g] for g in params), self._rng.random(), cand))
        return dict(min(candidates, key=lambda c: c[:2])[2]) if candidates else None

    def _listed_with_keys(self) -> list[tuple[str, dict[str, Value]]] | None:
        """Every valid genome with its key, keyed once (repairs come every few asks), or None for
        a space too big to list."""
        if self._keyed is _NOT_YET:
            listed = self.space.listed()
            self._keyed = [(canonical_json(c), c) for c in listed] if listed is not None else None
        return self._keyed

    def _values(self, r: Told) -> list[float] | None:
        objectives = r.objectives or ((r.objective,) if r.objective is not None else None)
        if objectives is None or any(v is None for v in objectives):
            return None
        return list(objectives)[: self.directions] if len(objectives) >= self.directions else None

    def _encode(self, params: dict[str, Value]) -> dict[str, object]:
        out = {}
        for g in self.space.genes:
            out[g.name] = g.index(params[g.name]) if g.kind in ("int", "pow2") else _key(params[g.name])
        return out

    def _decode(self, raw: dict[str, object]) -> dict[str, Value]:
        out = {}
        for g in self.space.genes:
            v = raw[g.name]
            out[g.name] = g.values[int(v)] if g.kind in ("int", "pow2") else json.loads(str(v))
        return out


def _key(value: Value) -> str:
    return json.dumps(value)  # Optuna categoricals hold one type well; JSON text keeps "auto" and 8 apart


def _distribution(gene):
    if gene.kind in ("int", "pow2"):
        return IntDistribution(0, len(gene.values) - 1)
    return CategoricalDistribution([_key(v) for v in gene.values])


def _sampler(name: str, seed: int, startup: int, population: int) -> optuna.samplers.BaseSampler:
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed, n_startup_trials=startup, multivariate=True)
    if name == "gp":
        return optuna.samplers.GPSampler(seed=seed, n_startup_trials=startup)
    if name == "cmaes":
        # CMA-ES models the ordered (integer) genes; categoricals fall back to independent sampling.
        return optuna.samplers.CmaEsSampler(seed=seed, warn_independent_sampling=False,
                                            independent_sampler=optuna.samplers.RandomSampler(seed=seed))
    if name == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed, population_size=population)
    with warnings.catch_warnings():  # experimental since Optuna 3.2; we accept that
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return optuna.samplers.NSGAIIISampler(seed=seed, population_size=population)


def _drop_torn_last_line(journal: Path) -> None:
    """A journal whose last line has no end (a process killed, or a disk filled, in the middle of
    an append) loses that line: it is one operation that never completed, and left in place the
    next append would join it into a line no reader can parse, and the study could not be opened
    again."""
    if not journal.is_file() or journal.stat().st_size == 0:
        return
    with journal.open("rb+") as f:
        f.seek(-1, 2)
        if f.read(1) == b"\n":
            return
        data = f.seek(0) or f.read()
        f.truncate(data.rfind(b"\n") + 1)


def _storage(spec: str | None):
    if spec is None:
        return None
    from optuna.storages import JournalStorage, RDBStorage
    from optuna.storages.journal import JournalFileBackend
    from sqlalchemy.exc import SQLAlchemyError

    try:
        if "://" in spec:  # sqlite:///..., postgresql://user@host/db: opened (and connected) here
            return RDBStorage(spec)
        Path(spec).parent.mkdir(parents=True, exist_ok=True)
        _drop_torn_last_line(Path(spec))
        return JournalStorage(JournalFileBackend(str(spec)))
    except (SQLAlchemyError, ImportError, OSError, ValueError) as exc:
        raise StorageError(f"cannot open the Optuna storage {spec!r}: {type(exc).__name__}: "
                           f"{str(exc).splitlines()[0] if str(exc) else ''}") from None
