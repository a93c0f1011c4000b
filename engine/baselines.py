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
from engine.template import Template, key_values


@dataclass(frozen=True)
class Baseline:
    """A record's times by workload (the decode layer's prefixed with "e2e:") and its name."""

    times: dict[str, float]
    name: str


NO_BASELINE = Baseline({}, "")


def baseline_of(record: Mapping[str, Any], name: str) -> Baseline:
    # the decode layer's times ride along (prefixed), for the e2e objective
    return Baseline(workload_times(record) | e2e_times(record), name)


def reference_name(record: Mapping[str, Any]) -> str:
    """A reference row's name: "pytorch reference path", and the problem genes' values it solved
    where it records them (its params are those values: "... (KV_FORMAT=fp8_656)"), named by
    genes as `show` names a problem's group of genomes."""
    params = json.loads(record["params_json"]) if record.get("params_json") else None
    return "pytorch reference path" + (f" ({key_values(params)})" if params else "")


def reference_problem(template: Template, record: Mapping[str, Any]) -> str:
    """The problem key of a reference row: its params record the problem genes' values; an
    older run's row records none, and the loop asked for it with no problem arguments, so it
    solved the problem's own defaults."""
    if record.get("params_json"):
        return template.problem_key(json.loads(record["params_json"]))
    if not template.problem_args:
        return template.problem_key({})
    import inspect

    from evaluators.problems import PROBLEMS  # (imports torch: only for an older run's reference row)

    params = inspect.signature(PROBLEMS[template.problem].__init__).parameters
    return json.dumps({arg: params[arg].default for arg, _ in template.problem_args}, sort_keys=True)


@dataclass
class Baselines:
    """Each problem's ok default genome, and each problem's PyTorch reference path as the last
    resort.

    ``main_problem`` is the problem of the space's defaults: its default stands in for a
    problem whose own default failed (scores of every problem then stay relative to a kernel,
    on one scale for the search)."""

    template: Template
    main_problem: str
    by_problem: dict[str, Baseline] = field(default_factory=dict)
    references: dict[str, Baseline] = field(default_factory=dict)

    @classmethod
    def for_space_defaults(cls, template: Template, default_params: Mapping[str, Value]) -> "Baselines":
        return cls(template, template.problem_key(default_params))

    def problem_of(self, record: Mapping[str, Any]) -> str:
        """The problem key of a genome or reference row."""
        if record.get("kind") == "reference":
            return reference_problem(self.template, record)
        return self.template.problem_key(json.loads(record["params_json"]))

    def add(self, record: Mapping[str, Any]) -> bool:
        """Takes an ok default-genome row as its problem's baseline, or an ok reference row as
        its problem's last resort; True where it did. Any other row is left alone."""
        if record.get("status") != "ok":
            return False
        if record.get("kind") == "reference":
            self.references[self.problem_of(record)] = baseline_of(record, reference_name(record))
            return True
        if record.get("kind") == "genome" and record.get("operator") == "default" and record.get("params_json"):
            key = self.problem_of(record)
            self.by_problem[key] = baseline_of(record, f"default genome {record['genome_id']}")
            return True
        return False

    def add_all(self, records: Iterable[Mapping[str, Any]]) -> "Baselines":
        for r in records:
            self.add(r)
        return self

    def of(self, params: Mapping[str, Value] | None) -> Baseline:
        """The baseline of a genome with ``params`` (None: a row without a genome): its own
        problem's default where that is ok; else the main problem's; else its own problem's
        PyTorch path; else the main problem's; else none (empty times, which score nothing)."""
        keys = [self.template.problem_key(params)] if params is not None else []
        keys.append(self.main_problem)
        found = next((table[k] for table in (self.by_problem, self.references) for k in keys if k in table), None)
        return found or NO_BASELINE

    def of_record(self, record: Mapping[str, Any]) -> Baseline:
        return self.of(json.loads(record["params_json"]) if record.get("params_json") else None)
