"""The evolve loop: ask -> validate -> render -> evaluate (isolated worker) -> record -> tell.

The loop owns the budget, deduplication, persistence and the baselines (a default genome for
each problem the template's genes pose). Strategies never see a device; the runner is injected,
so the loop runs the same on a GPU, under the Triton interpreter, or against a stub in tests.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, TextIO

from engine.baselines import Baselines
from engine.faults import FaultError, FaultInjector, operator_label
from engine.genome import Genome, InvalidGenome, Space, canonical_json
from engine.objectives import evaluate as objective_vector
from engine.objectives import pareto_front
from engine.scoring import workload_times
from engine.store.schema import E2E
from engine.store.writer import ResultsWriter
from engine.strategies.base import Proposal, Strategy, Told
from engine.template import RenderError, Template, key_values
from evaluators.cuda_compile import RESOURCE_FIELDS
from evaluators.integrity import HarnessIntegrity
from evaluators.status import Status


class Runner(Protocol):
    def evaluate(self, request: dict[str, Any]) -> dict[str, Any]: ...


@dataclass
class RunState:
    """What the loop knows of the run so far (rebuilt from Parquet on --resume)."""

    # each problem's default genome (an FP8 genome is scored against the FP8 default, not against
    # the bf16 one, which solves another problem), and the PyTorch path's times
    baselines: Baselines
    records: dict[str, dict[str, Any]] = field(default_factory=dict)  # genome_id -> record
    attempts: int = 0              # genome attempts, the unit of the budget
    next_attempt: int = 0          # attempt numbers of all rows, references included
    # the problem keys the PyTorch reference path was evaluated on (an FP8 cache's path
    # dequantizes its rows first): one row a problem the space poses, outside the budget, ok or not
    reference_problems: set[str] = field(default_factory=set)


class EvolveLoop:
    MAX_DUPLICATE_ROUNDS = 50  # consecutive all-duplicate asks before the space counts as spent

    def __init__(self, template: Template, space: Space, strategy: Strategy, runner: Runner,
                 writer: ResultsWriter, budget: int, cpu_rows: bool,
                 progress: TextIO = sys.stderr, clock: Callable[[], float] = time.monotonic,
                 integrity: HarnessIntegrity | None = None, injector: FaultInjector | None = None,
                 objectives: tuple[str, ...] = ("score",), e2e: bool = False, ask_ahead: bool = True,
                 deadline: float | None = None):
        self.template, self.space, self.strategy = template, space, strategy
        self.objectives = objectives
        self.e2e = e2e  # each genome (and the reference path) also inside the decode layer
        self.ask_ahead = ask_ahead  # where the strategy and the runner allow it (run)
        self.deadline = deadline  # on `clock`: no batch of the search starts after it (run)
        self.integrity = integrity
        self.injector = injector
        self.runner, self.writer, self.budget = runner, writer, budget
        self.cpu_rows, self.progress, self.clock = cpu_rows, progress, clock
        self.state = RunState(Baselines.for_space_defaults(template, space.default_params()))

    # -- resume ------------------------------------------------------------------------------
    def restore(self, records: list[dict[str, Any]]) -> None:
        evaluated = []
        for r in records:
            self.state.next_attempt = max(self.state.next_attempt, r["attempt"] + 1)
            if r["kind"] == "reference":
                self.state.reference_problems.add(self.state.baselines.problem_of(r))
                self.state.baselines.add(r)
                continue
            if r["kind"] == "injected":
                continue  # fire-drill rows: outside the budget, never told to the strategy
            self.state.attempts += 1
            if r["genome_id"] is None:
                continue  # an invalid proposal: counted, nothing to tell
            self.state.records[r["genome_id"]] = r
            self.state.baselines.add(r)  # an ok default genome: its problem's baseline
            evaluated.append(r)
        self.strategy.tell([self._told(r) for r in evaluated])

    # -- main --------------------------------------------------------------------------------
    def run(self) -> RunState:
        if self.state.attempts >= self.budget:
            # a resumed run's budget counts its earlier attempts; say so rather than end silently
            self._say(f"no genome left to evaluate: the run has {self.state.attempts} genome attempts and "
                      f"--budget {self.budget} counts them all; a larger --budget continues it")
        problems = self.template.problem_defaults(self.space)
        missing = [p for p in problems if self.template.problem_key(p) not in self.state.reference_problems]
        if missing:
            self.evaluate_references(missing)
        # a default genome for each problem (the space's defaults first), each its problem's
        # baseline; evaluated together where the runner has several workers
        defaults = [Proposal(params, "default") for params in problems
                    if self._genome(params).genome_id not in self.state.records]
        if defaults and self.state.attempts < self.budget:
            self.attempt_batch(defaults[:self.budget - self.state.attempts])
        width = getattr(self.runner, "width", 1)  # requests worth sending at once (GPUs)
        # A strategy that may be asked again before it is told gives the next batch now, and its
        # builds start while this batch is timed: the GPU no longer waits for a batch's slowest
        # build after the last batch's timings (H100: 20-35 s a batch of 8, 6-8 of them timing).
        ask_ahead = (self.ask_ahead and getattr(self.strategy, "asks_ahead", False)
                     and getattr(self.runner, "builds_ahead", False))
        idle_rounds = 0
        ahead: list[Proposal] | None = None
        while self.state.attempts < self.budget:
            out_of_time = self.deadline is not None and self.clock() >= self.deadline
            if out_of_time and ahead is None:
                self._say(f"stopping: the time limit passed after {self.state.attempts} of {self.budget} "
                          "genome attempts; --resume continues the run")
                break
            if ahead is None:
                asked = self.strategy.ask(min(width, self.budget - self.state.attempts))
                if ask_ahead:
                    self._prebuild(asked)
            else:  # asked while the batch before was timed, and its builds started then
                asked, ahead = ahead, None
            if ask_ahead and not out_of_time:
                # past the limit, a batch already asked (its builds under way) is still evaluated:
                # every genome a strategy proposed is told, as at the budget's end
                left = self.budget - self.state.attempts - len(asked)
                if left > 0:
                    ahead = self.strategy.ask(min(width, left))
                    self._prebuild(ahead)
            fresh = sum(record is not None for record in self.attempt_batch(asked))
            idle_rounds = 0 if fresh else idle_rounds + 1
            if idle_rounds >= self.MAX_DUPLICATE_ROUNDS:
                self._say(f"stopping: {idle_rounds} proposals in a row were already evaluated")
                break
        return self.state

    def _prebuild(self, proposals: list[Proposal]) -> None:
        """Start the builds of ``proposals`` not evaluated yet; one that cannot be rendered is
        left to ``attempt_batch``, which records why."""
        requests = []
        for proposal in proposals:
            try:
                genome = self._genome(proposal.params, proposal.code)
                if genome.genome_id not in self.state.records:
                    requests.append(self._request(self._render(genome),
                                                  params=genome.params))
            except (InvalidGenome, RenderError):
                continue
        self.runner.prebuild(requests)

    def attempt(self, proposal: Proposal) -> dict[str, Any] | None:
        """Evaluate and record one proposal; None (nothing spent) if it was evaluated before."""
        return self.attempt_batch([proposal])[0]

    def attempt_batch(self, proposals: list[Proposal]) -> list[dict[str, Any] | None]:
        """Evaluate proposals together (one per worker at a time) and record them in order.
        Per proposal: its record, or None (nothing spent) if it was evaluated before."""
        results: list[dict[str, Any] | None] = [None] * len(proposals)
        jobs: list[_Job] = []
        in_batch: set[str] = set()
        for i, proposal in enumerate(proposals):
            try:
                genome = self._genome(proposal.params, proposal.code)
            except InvalidGenome as exc:
                record = self._row(None, proposal, {"status": Status.INVALID_GENOME.value, "error": str(exc)})
                self._persist(record, proposal)
                results[i] = record
                continue
            seen = self.state.records.get(genome.genome_id)
            if seen is not None:
                self.strategy.tell([self._told(seen)])
                continue
            if genome.genome_id in in_batch:
                continue  # asked twice at once: evaluated once, told once
            in_batch.add(genome.genome_id)
            jobs.append(self._prepare(i, genome, proposal))
        sends = [(job, "injected", job.injected) for job in jobs if job.injected is not None]
        sends += [(job, "genome", job.request) for job in jobs if job.request is not None]
        outcomes = self._run_all([request for _, _, request in sends])
        for (job, role, _), outcome in zip(sends, outcomes):
            if role == "injected":
                self._record_injected(job, outcome)
            else:
                job.outcome = outcome
        for job in jobs:
            results[job.position] = self._finish(job)
        return results

    def _prepare(self, position: int, genome: Genome, proposal: Proposal) -> "_Job":
        job = _Job(position, genome, proposal)
        t0 = self.clock()
        try:
            source = self._render(genome)
        except RenderError as exc:
            job.outcome = {"status": Status.RENDER_ERROR.value, "stage": "render", "error": str(exc),
                           "eval_s": self.clock() - t0}
            return job
        job.request = self._request(source, params=genome.params)
        job.fault = self.injector.draw() if self.injector else None
        if job.fault is not None:
            # A deliberately broken copy of this genome's kernel: its own row, outside the
            # budget, never told to the strategy.
            try:
                faulty = job.fault.apply(source, self.template.entry)
            except FaultError as exc:  # e.g. a CUDA source without the kernels its launch line names
                self._say(f"[inject] {job.fault.name}: not drawn for this genome ({exc})")
                job.fault = None
                return job
            job.injected = self._request(faulty, params=genome.params)
        return job

    def _record_injected(self, job: "_Job", outcome: dict[str, Any]) -> None:
        assert job.fault is not None
        record = self._row(job.genome, Proposal(job.genome.params, operator_label(job.fault)), outcome)
        record.update(kind="injected")
        self.writer.append([record])
        self.state.next_attempt += 1
        self._say(f"[inject] {job.fault.name:<15} -> {record['status']}")

    def _finish(self, job: "_Job") -> dict[str, Any]:
        assert job.outcome is not None
        record = self._row(job.genome, job.proposal, job.outcome)
        self.state.baselines.add(record)  # an ok default genome: its problem's baseline
        record["score"], record["baseline"] = self._score(record)
        self._persist(record, job.proposal)
        self.strategy.tell([self._told(record)])
        return record

    # -- pieces ------------------------------------------------------------------------------
    def _told(self, record: dict[str, Any]) -> Told:
        genome = Genome(record["params_json"], record["template_hash"], record.get("code_json") or "")
        vector = objective_vector(self.objectives, record, self.state.baselines.of_record(record).times)
        single = record["score"] if self.objectives == ("score",) else (vector[0] if vector else None)
        return Told(record["genome_id"], genome.params, single, vector if len(self.objectives) > 1 else None,
                    told_detail(record), genome.code or None)

    def pareto(self) -> list[dict[str, Any]]:
        """The non-dominated genomes of each problem under the run's objectives (derived from the
        records): a genome of one cache format is no alternative to one of another, so each
        problem has its own front, its entries naming the problem."""
        points: dict[str, list[tuple[str, tuple]]] = {}
        for gid, r in self.state.records.items():
            if (v := objective_vector(self.objectives, r, self.state.baselines.of_record(r).times)) is not None:
                points.setdefault(self.template.problem_key(json.loads(r["params_json"])), []).append((gid, v))
        return [{"genome_id": gid, "problem": json.loads(key), "objectives": dict(zip(self.objectives, v)),
                 "params": json.loads(self.state.records[gid]["params_json"])}
                for key, group in points.items() for gid, v in pareto_front(group)]

    def _genome(self, params, code=None) -> Genome:
        return Genome.make(self.space, params, self.template.content_hash, code, self.template.regions)

    def _render(self, genome: Genome) -> str:
        """The genome's source, built for the runner's GPUs (what its problem launches there)."""
        return self.template.render(genome.params, genome.code, target=getattr(self.runner, "build_target", None))

    def _built_for(self, genome: Genome | None) -> list[int] | None:
        """The SM counts of the GPUs a genome's source was rendered for (its row's build_sm_counts;
        the problem may still give a genome no build variables, and it is then built whole), or
        None without a target or build variables: export rebuilds each winner for its own row's
        GPUs, even when a resumed run built later genomes for other ones."""
        target = getattr(self.runner, "build_target", None)
        return list(target.sm_counts) if genome and target is not None and self.template.build_variables else None

    def _request(self, source: str | None, builtin: str | None = None,
                 params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.template.request(source, params, builtin=builtin, e2e=self.e2e)

    def _run_all(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Send requests to the runner (together when it has several workers); stop the run if
        the harness changed meanwhile, so nothing measured by a changed harness is kept."""
        many = getattr(self.runner, "evaluate_many", None)
        if many is not None and len(requests) > 1:
            outcomes = many(requests)
        else:
            outcomes = []
            for request in requests:
                t0 = self.clock()
                outcome = self.runner.evaluate(request)
                outcome.setdefault("eval_s", self.clock() - t0)
                outcomes.append(outcome)
        if self.integrity is not None and requests:
            self.integrity.check()
        for request, outcome in zip(requests, outcomes):
            outcome["input_seed"] = request["seed"]
        return outcomes

    def evaluate_references(self, problems: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The PyTorch reference path on the problem of each of ``problems`` (genomes' params;
        their problem genes pick it), evaluated together where the runner has several workers:
        a row each, recording the problem genes' values as its params, and its problem's baseline
        where no default genome of the problem is ok."""
        outcomes = self._run_all([self._request(None, builtin="torch_reference", params=p) for p in problems])
        records = []
        for params, outcome in zip(problems, outcomes):
            chosen = self.template.problem_params(params)
            record = self._row(None, Proposal({}, "reference"), outcome)
            record.update(kind="reference", genome_id=reference_id(chosen), language="pytorch",
                          params_json=canonical_json(chosen) if chosen else None)
            self.writer.append([record])
            self.state.next_attempt += 1
            self.state.reference_problems.add(self.template.problem_key(params))
            self.state.baselines.add(record)
            problem = key_values(chosen)
            self._say(f"[reference{' ' + problem if problem else ''}] {record['status']} {self._times_text(record)}")
            records.append(record)
        return records

    def evaluate_reference(self, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """The PyTorch reference path on the problem of ``params`` (default: the space's defaults)."""
        return self.evaluate_references([dict(params or self.space.default_params())])[0]

    def _row(self, genome: Genome | None, proposal: Proposal, outcome: dict[str, Any]) -> dict[str, Any]:
        env = outcome.get("env") or {}
        return {
            "attempt": self.state.next_attempt, "kind": "genome",
            "genome_id": genome.genome_id if genome else None,
            "template": str(self.template.path), "template_hash": self.template.content_hash,
            "problem": self.template.problem, "language": self.template.language,
            "params_json": genome.params_json if genome else None,
            "code_json": (genome.code_json or None) if genome else None,
            "parent_ids": list(proposal.parent_ids), "operator": proposal.operator,
            "strategy": self.strategy.name, "status": outcome["status"], "stage": outcome.get("stage"),
            "error": outcome.get("error"), "input_seed": outcome.get("input_seed"),
            "compile_s": outcome.get("compile_s"), "verify_s": outcome.get("verify_s"),
            "bench_s": outcome.get("bench_s"), "e2e_s": outcome.get("e2e_s"), "eval_s": outcome.get("eval_s"),
            "device_index": outcome.get("device_index"),
            **{k: (outcome.get("resources") or {}).get(k)
               for k in RESOURCE_FIELDS},
            "compiler_notes": outcome.get("compiler_notes"), "build_sm_counts": self._built_for(genome),
            "cpu_row": self.cpu_rows, "verify": outcome.get("verify") or [],
            "workloads": [{k: w.get(k) for k in _WORKLOAD_FIELDS} for w in outcome.get("workloads") or []],
            "e2e": [{k: e.get(k) for k in _E2E_FIELDS} for e in outcome.get("e2e") or []] or None,
            "env": {k: str(env.get(k, "")) for k in _ENV_FIELDS} if env else None,
            "score": None, "baseline": None,
        }

    def _score(self, record: dict[str, Any]) -> tuple[float | None, str | None]:
        baseline = self.state.baselines.of_record(record)
        vector = objective_vector(("score",), record, baseline.times)
        return (vector[0], baseline.name) if vector else (None, None)

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
        self._say(f"{head} {best:<11} {proposal.operator:<18} {eval_s:6.1f}s  {detail}{advisories_text(record)}")

    @staticmethod
    def _times_text(record: dict[str, Any]) -> str:
        times = workload_times(record)
        picks = list(times.items())[:: max(1, len(times) // 4)]
        return " ".join(f"{k}={v:.1f}us" for k, v in picks)

    def _say(self, line: str) -> None:
        print(line, file=self.progress, flush=True)


def reference_id(problem_params: dict[str, Any]) -> str:
    """A reference row's id: "pytorch-reference", then the values of the genes that pick its
    problem where the template has any ("pytorch-reference-fp8_656")."""
    return "-".join(["pytorch-reference", *map(str, problem_params.values())])


def told_detail(record: dict[str, Any]) -> dict[str, Any]:
    """What a strategy is told of a record beside its objective (see Told.detail)."""
    error = " ".join((record.get("error") or "").split())
    return {"status": record["status"], "operator": record["operator"], "error": error[:400] or None,
            "times_us": workload_times(record), "registers": record.get("registers"),
            "layer_us": {e["name"]: e["step_us"] for e in record.get("e2e") or [] if e.get("step_us")},
            "spill_bytes": record.get("spill_bytes"), "code_bytes": record.get("code_bytes")}


def advisories_text(record: dict[str, Any]) -> str:
    """ptxas's performance advisories of the genome's build by code ("  [ptxas C7515]"), or "": a
    serialized wgmma makes a genome slow where nothing else says why (its row's compiler_notes
    hold the whole text)."""
    codes = sorted({note.split(":", 1)[0].removeprefix("ptxas ") for note in record.get("compiler_notes") or []
                    if note.startswith("ptxas C")})
    return f"  [ptxas {' '.join(codes)}]" if codes else ""


@dataclass
class _Job:
    """One fresh genome of a batch on its way through the runner."""

    position: int
    genome: Genome
    proposal: Proposal
    request: dict[str, Any] | None = None    # None: rendering failed (outcome already set)
    fault: Any = None
    injected: dict[str, Any] | None = None   # the fire-drill copy's request, if one was drawn
    outcome: dict[str, Any] | None = None


_WORKLOAD_FIELDS = ("name", "batch", "heads", "topk", "context", "median_us", "iqr_us", "min_us",
                    "n_samples", "tflops", "gbps", "roofline_floor_us", "roofline_frac")
_E2E_FIELDS = tuple(field.name for field in E2E)  # the row keeps what its schema holds of an e2e entry
_ENV_FIELDS = ("device_kind", "gpu", "driver", "cuda", "torch", "triton", "python", "host")
