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


def attention_inside_layer(record: Mapping[str, Any]) -> dict[str, tuple[float, float]]:
    """The kernel's own time inside the decode layer (the step with it less the step without it)
    and the step's IQR, per e2e workload. A difference that is not positive is no time (noise
    larger than the kernel): such a workload is left out."""
    return {e["name"]: (e["attention_us"], e.get("step_iqr_us") or 0.0) for e in record.get("e2e") or []
            if e.get("attention_us") is not None and e["attention_us"] > 0}


def kernel_times(baseline: Mapping[str, float]) -> dict[str, float]:
    """The kernel's own workloads of a baseline that may hold the decode layer's times too."""
    return {k: v for k, v in baseline.items() if not k.startswith(E2E)}


def relative_geomean(times: Mapping[str, float], baseline: Mapping[str, float]) -> float | None:
    """None when nothing can be compared; every baseline workload must have been timed."""
    if not baseline or any(name not in times for name in baseline):
        return None
    logs = [math.log(times[n] / baseline[n]) for n in baseline]
    return math.exp(sum(logs) / len(logs))
