"""Replay and comparison of search strategies against a recorded sweep, without a GPU.

Follows Kernel Tuner's methodology for comparing optimizers (AutoTuningAssociation's
autotuning_methodology): a brute-forced (or near-complete) sweep answers every evaluation; each
strategy runs many seeds; the yardstick is a *calculated* random search without replacement,
not a simulated one; curves are best-so-far against evaluations.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TextIO

import numpy as np

from engine.baselines import Baselines
from engine.errors import UserError
from engine.genome import Genome, Space, canonical_json
from engine.loop import EvolveLoop
from engine.objectives import OBJECTIVES
from engine.objectives import evaluate as evaluate_objectives
from engine.run_folder import read_config, searched_space, template_of_run
from engine.store.reader import read_records
from engine.strategies import STRATEGIES, Told, make_strategy
from engine.template import Template, key_values, load_template


@dataclass(frozen=True)
class Sweep:
    template: Template
    space: Space
    objective: dict[str, float | None]   # canonical params -> score (None: the genome failed)
    fixed: dict = field(default_factory=dict)  # genes the sweep held at one value (a slice)
    objective_name: str = "score"

    @property
    def best(self) -> float:
        return min(v for v in self.objective.values() if v is not None)

    def coverage(self) -> float:
        valid = sum(1 for _ in self.space.valid_points())
        return len(self.objective) / valid if valid else 0.0


SWEEP_COVERAGE = 0.9  # below this share of the valid space, a run is no sweep to replay against


def load_sweep(run_dir: Path, template: Path | None = None, objective: str = "score") -> Sweep:
    """A recorded run as the answer to every evaluation: per genome, the value of ``objective``
    (relative to the default genome of its problem, as the run scored it) or None where it failed."""
    config = read_config(run_dir)
    if template is not None:
        other = load_template(template)
        if other.content_hash != config.template_hash:
            raise UserError(f"{run_dir}: a sweep of {config.template} (hash {config.template_hash}); {template} "
                            f"has hash {other.content_hash}: another template, or this one edited since the sweep")
    tpl = template_of_run(run_dir, config)
    if objective not in OBJECTIVES:
        raise UserError(f"--objective {objective}: not an objective the records carry; "
                        f"choose from {sorted(OBJECTIVES)}")
    space = searched_space(run_dir, tpl.load_space(), config.fixed)
    rows = read_records(run_dir)
    # each genome against its own problem's default (the cache format's, ...), as the loop scored it
    baselines = Baselines.for_space_defaults(tpl, space.default_params()).add_all(rows)
    # a sweep is of the template's own code: genomes with regions an LLM rewrote are not points of it
    records = [r for r in rows if r["kind"] == "genome" and r["params_json"] and not r.get("code_json")]
    values: dict[str, float | None] = {}
    for r in records:
        params = Genome(r["params_json"], r["template_hash"]).params
        key = canonical_json(params)
        if objective == "score":
            values[key] = r["score"]
        else:
            vector = evaluate_objectives((objective,), r, baselines.of(params).times)
            values[key] = vector[0] if vector else None
    if not any(v is not None for v in values.values()):
        raise UserError(f"{run_dir}: no genome of the sweep carries objective {objective!r}")
    return Sweep(tpl, space, values, dict(config.fixed), objective)


def run_strategy(sweep: Sweep, name: str, seed: int, budget: int) -> list[float]:
    """Best-so-far score after each fresh evaluation (inf until something succeeds).

    No strategy is handed the template's default genome: in a real run the loop evaluates it
    first for every strategy alike, so crediting it would measure the template, not the search."""
    strategy = make_strategy(name, sweep.space, seed, {"seed_default": False} if name == "ga" else None)
    seen: dict[str, float | None] = {}
    best, curve, asks, repeats = math.inf, [], 0, 0
    # as in evolve, fifty repeats in a row mean the strategy has no new genome left to give (a
    # budget past the space's size)
    while len(curve) < budget and asks < 50 * budget and repeats < EvolveLoop.MAX_DUPLICATE_ROUNDS:
        asks += 1
        (proposal,) = strategy.ask(1)
        key = canonical_json(proposal.params)
        gid = Genome(key, sweep.template.content_hash).genome_id
        if key in seen:
            repeats += 1
            strategy.tell([Told(gid, proposal.params, seen[key])])
            continue
        repeats = 0
        value = sweep.objective.get(key)  # a genome the sweep lacks counts as failed
        seen[key] = value
        strategy.tell([Told(gid, proposal.params, value)])
        if value is not None:
            best = min(best, value)
        curve.append(best)
    return curve


def evaluations_to(curve: list[float], target: float) -> int | None:
    return next((i + 1 for i, v in enumerate(curve) if v <= target), None)


def random_baseline(sweep: Sweep, budget: int, target: float) -> tuple[list[float], float]:
    """Calculated random search without replacement over the sweep: the median best-so-far
    after j evaluations (j = 1..budget), and the median number of evaluations to reach ``target``.
    With values sorted ascending, P(best of j draws <= i-th smallest) = 1 - C(n-i, j) / C(n, j)."""
    values = sorted(v if v is not None else math.inf for v in sweep.objective.values())
    n = len(values)
    i = np.arange(1, n + 1)
    curve = []
    for j in range(1, min(budget, n) + 1):
        reach = 1.0 - np.exp(_log_comb(n - i, j) - _log_comb(n, j))
        curve.append(values[int(np.argmax(reach >= 0.5))])
    hits = sum(v <= target for v in values)
    median = next((j for j in range(1, n + 1)
                   if math.exp(float(_log_comb(n - hits, j) - _log_comb(n, j))) <= 0.5), math.inf) if hits else math.inf
    return curve, median


def _log_comb(n, k):
    """log C(n, k), elementwise; -inf where C(n, k) = 0 (k < 0 or k > n)."""
    n, k = np.broadcast_arrays(np.asarray(n, dtype=float), np.asarray(k, dtype=float))
    out = np.full(n.shape, -np.inf)
    ok = (k >= 0) & (k <= n)
    lg = np.vectorize(math.lgamma, otypes=[float])
    if ok.any():
        out[ok] = lg(n[ok] + 1) - lg(k[ok] + 1) - lg(n[ok] - k[ok] + 1)
    return out if out.ndim else float(out)


@dataclass(frozen=True)
class Comparison:
    name: str
    median_evals: float           # inf when fewer than half of the seeds reached the target
    reached: int                  # seeds that reached it
    curves: list[list[float]]


def compare(sweep: Sweep, names: list[str], budget: int, seeds: int, threshold: float,
            progress: Callable[[str], None] = lambda line: None) -> tuple[list[Comparison], float, list[float]]:
    unknown = [n for n in names if n not in STRATEGIES]
    if unknown:
        raise UserError(f"unknown strategies {unknown}; choose from {sorted(STRATEGIES)}")
    target = sweep.best * (1 + threshold)
    results = []
    for name in names:
        curves, needed = [], []
        for seed in range(seeds):
            curve = run_strategy(sweep, name, seed, budget)
            curves.append(curve)
            needed.append(evaluations_to(curve, target))
        reached = [n for n in needed if n is not None]
        padded = sorted(n if n is not None else math.inf for n in needed)
        results.append(Comparison(name, statistics.median(padded), len(reached), curves))
        progress(f"{name}: done")
    base_curve, base_median = random_baseline(sweep, budget, target)
    return results, base_median, base_curve


def report(results: list[Comparison], base_median: float, sweep: Sweep, budget: int, seeds: int,
           threshold: float, out: TextIO) -> None:
    print(f"sweep: {len(sweep.objective)} genomes of {sweep.template.path} "
          f"({sweep.coverage():.0%} of the valid space"
          f"{' with ' + key_values(sweep.fixed) if sweep.fixed else ''}), "
          f"best {sweep.objective_name} {sweep.best:.4f}; "
          f"target: within {threshold:.0%} of it; budget {budget}; {seeds} seeds", file=out)
    coverage = sweep.coverage()
    if coverage < SWEEP_COVERAGE:
        # random* draws among the recorded genomes only, the replayed strategies among all, and each
        # genome the run lacks counts as failed: the ratios would compare different problems
        print(f"  note: the run covers {coverage:.0%} of the valid space, not a sweep: a strategy's proposals it "
              "lacks count as failed and random* draws among its genomes only, so the ratios below do not "
              "compare the strategies; replay a brute-forced (or nearly complete) sweep", file=out)
    print(f"  {'strategy':<10}{'median evals':>14}{'reached':>10}{'vs random':>11}", file=out)
    print(f"  {'random*':<10}{_fmt(base_median):>14}{'':>10}{'1.00x':>11}   (* calculated, without replacement)",
          file=out)
    for r in results:
        ratio = base_median / r.median_evals if math.isfinite(r.median_evals) else 0.0
        print(f"  {r.name:<10}{_fmt(r.median_evals):>14}{f'{r.reached}/{seeds}':>10}{ratio:>10.2f}x", file=out)


def _fmt(x: float) -> str:
    return f"{x:g}" if math.isfinite(x) else "not reached"


def plot(results: list[Comparison], base_curve: list[float], sweep: Sweep, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    for r in results:
        arr = np.array([c + [c[-1]] * (max(map(len, r.curves)) - len(c)) for c in r.curves]) / sweep.best
        ax.plot(np.arange(1, arr.shape[1] + 1), np.median(arr, axis=0), label=r.name)
    ax.plot(np.arange(1, len(base_curve) + 1), np.array(base_curve) / sweep.best, "k--",
            label="random (calculated)")
    ax.set_xlabel("evaluations")
    ax.set_ylabel(f"best {sweep.objective_name} so far / sweep best (median over seeds)")
    ax.set_yscale("log")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
