"""The evolve loop: ask -> validate -> render -> evaluate (isolated worker) -> record -> tell.

The loop owns the budget, deduplication, persistence and the baseline. Strategies never see a
device; the runner is injected, so the loop runs the same on a GPU, under the Triton
interpreter, or against a stub in tests.
"""

from __future__ import annotations

import json
import secrets
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, TextIO

from engine.faults import FaultInjector, inject, operator_label
from engine.genome import Genome, InvalidGenome, Space
from engine.objectives import evaluate as objective_vector
from engine.objectives import pareto_front
from engine.scoring import workload_times
from engine.store.writer import ResultsWriter
from engine.strategies.base import Proposal, Strategy, Told
from engine.template import RenderError, Template
from evaluators.integrity import HarnessIntegrity
from evaluators.status import Status


class Runner(Protocol):
    def evaluate(self, request: dict[str, Any]) -> dict[str, Any]: ...


@dataclass
class RunState:
    """What the loop knows of the run so far (rebuilt from Parquet on --resume)."""

    records: dict[str, dict[str, Any]] = field(default_factory=dict)  # genome_id -> record
    attempts: int = 0              # genome attempts, the unit of the budget
    next_attempt: int = 0          # attempt numbers of all rows, reference included
    reference: dict[str, Any] | None = None
    baseline: dict[str, float] = field(default_factory=dict)
    baseline_name: str = ""


class EvolveLoop:
    MAX_DUPLICATE_ROUNDS = 50  # consecutive all-duplicate asks before the space counts as spent

    def __init__(self, template: Template, space: Space, strategy: Strategy, runner: Runner,
                 writer: ResultsWriter, budget: int, cpu_rows: bool,
                 progress: TextIO = sys.stderr, clock: Callable[[], float] = time.monotonic,
                 integrity: HarnessIntegrity | None = None, injector: FaultInjector | None = None,
                 objectives: tuple[str, ...] = ("score",)):
        self.template, self.space, self.strategy = template, space, strategy
        self.objectives = objectives
        self.integrity = integrity
        self.injector = injector
        self.runner, self.writer, self.budget = runner, writer, budget
        self.cpu_rows, self.progress, self.clock = cpu_rows, progress, clock
        self.state = RunState()

    # -- resume ------------------------------------------------------------------------------
    def restore(self, records: list[dict[str, Any]]) -> None:
        evaluated = []
        for r in records:
            self.state.next_attempt = max(self.state.next_attempt, r["attempt"] + 1)
            if r["kind"] == "reference":
                self.state.reference = r
                continue
            if r["kind"] == "injected":
                continue  # fire-drill rows: outside the budget, never told to the strategy
            self.state.attempts += 1
            if r["genome_id"] is None:
                continue  # an invalid proposal: counted, nothing to tell
            self.state.records[r["genome_id"]] = r
            if r["operator"] == "default" and r["status"] == Status.OK.value:
                self._set_baseline(r, f"default genome {r['genome_id']}")
            evaluated.append(r)
        if not self.state.baseline and self.state.reference and self.state.reference["status"] == "ok":
            self._set_baseline(self.state.reference, "pytorch reference path")
        self.strategy.tell([self._told(r) for r in evaluated])

    # -- main --------------------------------------------------------------------------------
    def run(self) -> RunState:
        if self.state.reference is None:
            self.state.reference = self.evaluate_reference()
        default = self.space.default_params()
        if self.state.attempts < self.budget and self._genome(default).genome_id not in self.state.records:
            self.attempt(Proposal(default, "default"))
        if not self.state.baseline and self.state.reference["status"] == Status.OK.value:
            self._set_baseline(self.state.reference, "pytorch reference path")
        idle_rounds = 0
        while self.state.attempts < self.budget:
            fresh = 0
            for proposal in self.strategy.ask(1):
                fresh += self.attempt(proposal) is not None
            idle_rounds = 0 if fresh else idle_rounds + 1
            if idle_rounds >= self.MAX_DUPLICATE_ROUNDS:
                self._say(f"stopping: {idle_rounds} proposals in a row were already evaluated")
                break
        return self.state

    def attempt(self, proposal: Proposal) -> dict[str, Any] | None:
        """Evaluate and record one proposal; None (nothing spent) if it was evaluated before."""
        try:
            genome = self._genome(proposal.params)
        except InvalidGenome as exc:
            record = self._row(None, proposal, {"status": Status.INVALID_GENOME.value, "error": str(exc)})
            self._persist(record, proposal)
            return record
        seen = self.state.records.get(genome.genome_id)
        if seen is not None:
            self.strategy.tell([self._told(seen)])
            return None
        fault = self.injector.draw() if self.injector else None
        if fault is not None:
            self._evaluate_injected(genome, fault)
        t0 = self.clock()
        try:
            source = self.template.render(genome.params)
        except RenderError as exc:
            outcome: dict[str, Any] = {"status": Status.RENDER_ERROR.value, "stage": "render", "error": str(exc)}
        else:
            outcome = self._run(self._request(source), t0)
        outcome.setdefault("eval_s", self.clock() - t0)
        record = self._row(genome, proposal, outcome)
        if proposal.operator == "default" and record["status"] == Status.OK.value:
            self._set_baseline(record, f"default genome {genome.genome_id}")
        record["score"], record["baseline"] = self._score(record)
        self._persist(record, proposal)
        self.strategy.tell([self._told(record)])
        return record

    def _evaluate_injected(self, genome: Genome, fault) -> None:
        """A deliberately broken copy of this genome's kernel: its own row, outside the budget,
        never told to the strategy."""
        try:
            source = inject(self.template.render(genome.params), self.template.entry, fault)
        except RenderError:
            return
        outcome = self._run(self._request(source), self.clock())
        record = self._row(genome, Proposal(genome.params, operator_label(fault)), outcome)
        record.update(kind="injected")
        self.writer.append([record])
        self.state.next_attempt += 1
        self._say(f"[inject] {fault.name:<15} -> {record['status']}")

    # -- pieces ------------------------------------------------------------------------------
    def _told(self, record: dict[str, Any]) -> Told:
        params = Genome(record["params_json"], record["template_hash"]).params
        vector = objective_vector(self.objectives, record, self.state.baseline)
        single = record["score"] if self.objectives == ("score",) else (vector[0] if vector else None)
        return Told(record["genome_id"], params, single, vector if len(self.objectives) > 1 else None)

    def pareto(self) -> list[dict[str, Any]]:
        """The non-dominated genomes of the run under its objectives (derived from the records)."""
        points = [(gid, v) for gid, r in self.state.records.items()
                  if (v := objective_vector(self.objectives, r, self.state.baseline)) is not None]
        return [{"genome_id": gid, "objectives": dict(zip(self.objectives, v)),
                 "params": json.loads(self.state.records[gid]["params_json"])}
                for gid, v in pareto_front(points)]

    def _genome(self, params) -> Genome:
        return Genome.make(self.space, params, self.template.content_hash)

    def _request(self, source: str | None, builtin: str | None = None) -> dict[str, Any]:
        return {"problem": self.template.problem, "language": self.template.language,
                "entry": self.template.entry, "source": source, "builtin": builtin,
                "seed": secrets.randbits(62)}

    def _run(self, request: dict[str, Any], t0: float) -> dict[str, Any]:
        """Send one request to the runner; stop the run if the harness changed meanwhile, so
        nothing measured by a changed harness is kept."""
        outcome = self.runner.evaluate(request)
        if self.integrity is not None:
            self.integrity.check()
        outcome.update(eval_s=self.clock() - t0, input_seed=request["seed"])
        return outcome

    def evaluate_reference(self) -> dict[str, Any]:
        outcome = self._run(self._request(None, builtin="torch_reference"), self.clock())
        record = self._row(None, Proposal({}, "reference"), outcome)
        record.update(kind="reference", genome_id="pytorch-reference", language="pytorch")
        self.writer.append([record])
        self.state.next_attempt += 1
        self._say(f"[reference] {record['status']} {self._times_text(record)}")
        return record

    def _row(self, genome: Genome | None, proposal: Proposal, outcome: dict[str, Any]) -> dict[str, Any]:
        env = outcome.get("env") or {}
        return {
            "attempt": self.state.next_attempt, "kind": "genome",
            "genome_id": genome.genome_id if genome else None,
            "template": str(self.template.path), "template_hash": self.template.content_hash,
            "problem": self.template.problem, "language": self.template.language,
            "params_json": genome.params_json if genome else None,
            "parent_ids": list(proposal.parent_ids), "operator": proposal.operator,
            "strategy": self.strategy.name, "status": outcome["status"], "stage": outcome.get("stage"),
            "error": outcome.get("error"), "input_seed": outcome.get("input_seed"),
            "compile_s": outcome.get("compile_s"), "verify_s": outcome.get("verify_s"),
            "bench_s": outcome.get("bench_s"), "eval_s": outcome.get("eval_s"),
            **{k: (outcome.get("resources") or {}).get(k)
               for k in ("registers", "shared_bytes", "stack_bytes", "spill_bytes")},
            "cpu_row": self.cpu_rows, "verify": outcome.get("verify") or [],
            "workloads": [{k: w.get(k) for k in _WORKLOAD_FIELDS} for w in outcome.get("workloads") or []],
            "env": {k: str(env.get(k, "")) for k in _ENV_FIELDS} if env else None,
            "score": None, "baseline": None,
        }

    def _score(self, record: dict[str, Any]) -> tuple[float | None, str | None]:
        vector = objective_vector(("score",), record, self.state.baseline)
        return (vector[0], self.state.baseline_name) if vector else (None, None)

    def _set_baseline(self, record: dict[str, Any], name: str) -> None:
        self.state.baseline, self.state.baseline_name = workload_times(record), name

    def _persist(self, record: dict[str, Any], proposal: Proposal) -> None:
        self.writer.append([record])
        self.state.next_attempt += 1
        self.state.attempts += 1
        if record["genome_id"]:
            self.state.records[record["genome_id"]] = record
        self._report(record, proposal)

    def _report(self, record: dict[str, Any], proposal: Proposal) -> None:
        scores = [r["score"] for r in self.state.records.values() if r["score"] is not None]
        best = f"best {min(scores):.3f}" if scores else "best -"
        head = f"[{self.state.attempts:>4}/{self.budget}] {record['status']:<14}"
        if record["status"] == Status.OK.value:
            detail = f"score {record['score']:.3f}" if record["score"] is not None else "score -"
            detail += f"  {self._times_text(record)}"
        else:
            detail = (record["error"] or "")[:100].replace("\n", " ")
        eval_s = record.get("eval_s") or 0.0
        self._say(f"{head} {best:<11} {proposal.operator:<18} {eval_s:6.1f}s  {detail}")

    @staticmethod
    def _times_text(record: dict[str, Any]) -> str:
        times = workload_times(record)
        picks = list(times.items())[:: max(1, len(times) // 4)]
        return " ".join(f"{k}={v:.1f}us" for k, v in picks)

    def _say(self, line: str) -> None:
        print(line, file=self.progress, flush=True)


_WORKLOAD_FIELDS = ("name", "batch", "heads", "topk", "context", "median_us", "iqr_us", "min_us",
                    "n_samples", "tflops", "gbps", "roofline_floor_us", "roofline_frac")
_ENV_FIELDS = ("device_kind", "gpu", "driver", "cuda", "torch", "triton", "python", "host")
