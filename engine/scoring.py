"""The single objective: geometric mean over workloads of time relative to a baseline."""

from __future__ import annotations

import math
from typing import Any, Mapping


def workload_times(record: Mapping[str, Any]) -> dict[str, float]:
    return {w["name"]: w["median_us"] for w in record.get("workloads") or [] if w.get("median_us")}


def relative_geomean(times: Mapping[str, float], baseline: Mapping[str, float]) -> float | None:
    """None when nothing can be compared; every baseline workload must have been timed."""
    if not baseline or any(name not in times for name in baseline):
        return None
    logs = [math.log(times[n] / baseline[n]) for n in baseline]
    return math.exp(sum(logs) / len(logs))
