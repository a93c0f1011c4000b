"""The single objective: geometric mean over workloads of time relative to a baseline."""

from __future__ import annotations

import math
from typing import Any, Mapping


def workload_times(record: Mapping[str, Any]) -> dict[str, float]:
    return {w["name"]: w["median_us"] for w in record.get("workloads") or [] if w.get("median_us")}


E2E = "e2e:"  # the prefix of the decode layer's times among a run's baseline times


def e2e_times(record: Mapping[str, Any]) -> dict[str, float]:
    """The decode layer's time with the record's kernel in it, per e2e workload (evolve --e2e)."""
    return {E2E + e["name"]: e["step_us"] for e in record.get("e2e") or [] if e.get("step_us")}


def kernel_times(baseline: Mapping[str, float]) -> dict[str, float]:
    """The kernel's own workloads of a baseline that may hold the decode layer's times too."""
    return {k: v for k, v in baseline.items() if not k.startswith(E2E)}


def relative_geomean(times: Mapping[str, float], baseline: Mapping[str, float]) -> float | None:
    """None when nothing can be compared; every baseline workload must have been timed."""
    if not baseline or any(name not in times for name in baseline):
        return None
    logs = [math.log(times[n] / baseline[n]) for n in baseline]
    return math.exp(sum(logs) / len(logs))
