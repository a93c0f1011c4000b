"""Objectives a run can minimise, each derived from a record and the run's baseline times.

`score` is the single objective (geomean time relative to the baseline over all workloads).
Multi-objective runs pick several: per-regime latencies, the decode layer's time (`e2e`, runs
made with --e2e) and the accuracy error.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping

from engine.errors import UserError
from engine.scoring import E2E, e2e_times, kernel_times, relative_geomean, workload_times


def _regime(select: Callable[[dict, list[dict]], bool]) -> Callable[[Mapping, Mapping], float | None]:
    def objective(record: Mapping[str, Any], baseline: Mapping[str, float]) -> float | None:
        workloads = record.get("workloads") or []
        chosen = {w["name"] for w in workloads if select(w, workloads)}
        if not chosen:
            return None
        return relative_geomean(workload_times(record), {k: v for k, v in baseline.items() if k in chosen})
    return objective


def _e2e(record: Mapping[str, Any], baseline: Mapping[str, float]) -> float | None:
    """The decode layer's time with the genome's kernel over the baseline's (runs made with --e2e)."""
    return relative_geomean(e2e_times(record), {k: v for k, v in baseline.items() if k.startswith(E2E)})


def _error(record: Mapping[str, Any], baseline: Mapping[str, float]) -> float | None:
    errors = [v["out_rel_l2"] for v in record.get("verify") or [] if v.get("out_rel_l2") is not None]
    return max(errors) if errors else None


OBJECTIVES: dict[str, Callable[[Mapping, Mapping], float | None]] = {
    "score": lambda r, b: relative_geomean(workload_times(r), kernel_times(b)),
    "small_batch": _regime(lambda w, ws: w["batch"] <= 8),
    "large_batch": _regime(lambda w, ws: w["batch"] >= 64),
    "long_context": _regime(lambda w, ws: w["context"] == max(x["context"] for x in ws)),
    "error": _error,
    "e2e": _e2e,
}


def parse_objectives(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names:
        raise UserError(f"--objectives {text!r}: name at least one of {sorted(OBJECTIVES)}")
    unknown = [n for n in names if n not in OBJECTIVES]
    if unknown:
        raise UserError(f"--objectives: records carry no objective {unknown}; choose from {sorted(OBJECTIVES)}")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:  # a front over one objective named twice is that objective's ranking, said wrongly
        raise UserError(f"--objectives {text!r}: {twice} named twice")
    return names


def evaluate(names: tuple[str, ...], record: Mapping[str, Any], baseline: Mapping[str, float]) -> tuple | None:
    """The record's objective vector, or None if it failed or lacks one of them."""
    if record.get("status") != "ok" or not baseline:
        return None
    values = tuple(OBJECTIVES[n](record, baseline) for n in names)
    return None if any(v is None or not math.isfinite(v) for v in values) else values


def pareto_front(points: list[tuple[str, tuple[float, ...]]]) -> list[tuple[str, tuple[float, ...]]]:
    """The non-dominated (id, vector) pairs, all objectives minimised."""
    front = []
    for gid, v in points:
        dominated = any(all(o <= x for o, x in zip(other, v)) and other != v for _, other in points)
        if not dominated:
            front.append((gid, v))
    return sorted(front, key=lambda p: p[1])
