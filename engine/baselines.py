"""What a genome's times are relative to: the default genome of the problem it solves.

A template's problem genes (the cache format, ...) pose several problems; an FP8 genome is
scored against the FP8 default, never against the bf16 one. The loop and `compare-strategies`
both read baselines from here, so a recorded run scores the same way wherever it is read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from engine.genome import Value
from engine.scoring import e2e_times, workload_times
from engine.template import Template


@dataclass(frozen=True)
class Baseline:
    """A record's times by workload (the decode layer's prefixed with "e2e:") and its name."""

    times: dict[str, float]
    name: str


NO_BASELINE = Baseline({}, "")


def baseline_of(record: Mapping[str, Any], name: str) -> Baseline:
    # the decode layer's times ride along (prefixed), for the e2e objective
    return Baseline(workload_times(record) | e2e_times(record), name)


@dataclass
class Baselines:
    """Each problem's ok default genome, and the PyTorch path's times as the last resort.

    ``main_problem`` is the problem of the space's defaults: its default stands in for a
    problem whose own default failed."""

    template: Template
    main_problem: str
    by_problem: dict[str, Baseline] = field(default_factory=dict)
    reference: Baseline | None = None

    @classmethod
    def for_space_defaults(cls, template: Template, default_params: Mapping[str, Value]) -> "Baselines":
        return cls(template, template.problem_key(default_params))

    def add(self, record: Mapping[str, Any]) -> bool:
        """Takes an ok default-genome row as its problem's baseline, or an ok reference row as
        the last resort; True where it did. Any other row is left alone."""
        if record.get("status") != "ok":
            return False
        if record.get("kind") == "reference":
            self.reference = baseline_of(record, "pytorch reference path")
            return True
        if record.get("kind") == "genome" and record.get("operator") == "default" and record.get("params_json"):
            key = self.template.problem_key(json.loads(record["params_json"]))
            self.by_problem[key] = baseline_of(record, f"default genome {record['genome_id']}")
            return True
        return False

    def add_all(self, records: Iterable[Mapping[str, Any]]) -> "Baselines":
        for r in records:
            self.add(r)
        return self

    def of(self, params: Mapping[str, Value] | None) -> Baseline:
        """The baseline of a genome with ``params`` (None: a row without a genome): its own
        problem's default where that is ok; else the main problem's; else the PyTorch path's;
        else none (empty times, which score nothing)."""
        keys = [self.template.problem_key(params)] if params is not None else []
        keys.append(self.main_problem)
        found = next((self.by_problem[k] for k in keys if k in self.by_problem), None)
        return found or self.reference or NO_BASELINE

    def of_record(self, record: Mapping[str, Any]) -> Baseline:
        return self.of(json.loads(record["params_json"]) if record.get("params_json") else None)
