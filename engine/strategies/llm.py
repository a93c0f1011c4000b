"""The LLM operator: an OpenAI-compatible endpoint proposes genomes; a partner strategy fills in.

Each call shows the model the brief (hardware sheet, model sheet, template, space: the same text
every call) and the situation (the default's times, the best genomes, recent failures, what became
of its own last proposals), and asks for ``batch`` genomes as JSON. Those are served to the loop
one ask at a time, labelled ``llm:<call>`` so each Parquet row leads to its call in
``llm/calls.jsonl``. The partner (random by default, or any strategy, TPE for a seeded Bayesian
search) is told every result and proposes whenever the LLM does not: once ``calls`` calls are
spent, and for ``batch`` asks after a call that failed or gave nothing new.

A wrong key, model or URL stops the run at its first call (exit 2, rows so far kept); a later
failure only hands the next asks to the partner.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
import time
from collections import Counter, deque
from typing import Any, Mapping, Sequence, TextIO

from engine.errors import UserError
from engine.genome import Space, canonical_json, code_violations, identity
from engine.llm.brief import Brief
from engine.llm.client import LlmError
from engine.llm.reply import UnreadableReply, parse_reply
from engine.llm.transcript import Transcript
from engine.strategies.base import Proposal, Strategy, Told

SYSTEM = """\
You tune a GPU kernel by choosing values for the holes (genes) of a kernel template that an
engineer wrote. Each genome you propose is rendered, compiled, checked for correctness against a
higher-precision reference on fresh random inputs, and timed on every workload; most attempts
fail, and every attempt is recorded with its reason. Use the hardware and model facts you are
given; where they are silent, reason from the results, and do not invent limits or features.
Prefer genomes that test a clear hypothesis about what limits the kernel, and state it in "why"
in one or two sentences.

Answer with one JSON object and nothing else:
{"genomes": [{"params": {"GENE": value, ...}, "from": "<id of the genome you changed, or null>", "why": "..."}]}
Name only the genes you change from the space's defaults, with values the space lists. Every
genome must satisfy the space's constraints. Never repeat a genome that was already evaluated."""

CODE_RULES = """
The template's code regions, its Jinja blocks, may be rewritten: {names}. To rewrite one, add
"code": {{"REGION": "new text"}} to a genome, beside its params. The text replaces the block's
body (without the block tags); it is Jinja too and may read the genes and the template's
top-level variables and macros. A genome names every region it rewrites; the others keep the
template's text. The rewritten kernel must stay correct for every workload: its outputs are
checked against the reference on fresh inputs, and a wrong one is recorded as incorrect. Keep
the kernel in the template's language; do not cache results or skip work."""
CODE_SHOWN = 3   # genomes whose rewritten regions the situation prints in full
PATTERNS_SHOWN = 12

BEST_SHOWN = 10
FAILURES_SHOWN = 10


class LlmStrategy:
    name = "llm"

    def __init__(self, space: Space, seed: int, *, chat: Any, brief: Brief, transcript: Transcript,
                 partner: Strategy, batch: int = 4, calls: int | None = None, patience: int | None = None,
                 regions: Mapping[str, str] | None = None, progress: TextIO = sys.stderr):
        if batch < 1:
            raise ValueError(f"batch {batch}: at least one genome a call")
        self.space, self.seed, self.chat, self.brief = space, seed, chat, brief
        self.brief_text, self.brief_sources = brief.text(), brief.describe()  # the same at every call
        self.transcript, self.partner, self.batch, self.calls = transcript, partner, batch, calls
        self.patience = patience          # calls without a new best from the LLM before it is asked no more
        self.best: float | None = None
        self.last_best_call = 0           # the latest call whose genome set a new best of the run
        self.stalled = False
        self.progress, self.regions = progress, dict(regions or {})
        self.system = SYSTEM + (CODE_RULES.format(names=", ".join(self.regions)) if self.regions else "")
        self.defaults = space.default_params()
        self.history: dict[str, Told] = {}           # every result told, in the order told
        self.seen: set[str] = set()                  # every genome told, by its genes and code
        self.queue: deque[Proposal] = deque()
        self.partner_turns = 0                       # asks left to the partner after a failed call
        self.notes: list[str] = []                   # said in the next call (unreadable answer, repeats)
        self.outside: list[tuple[dict, Any, list[str]]] = []  # the last call's genomes outside the space, and why

    # -- ask/tell ----------------------------------------------------------------------------
    def ask(self, n: int) -> list[Proposal]:
        out: list[Proposal] = []
        while len(out) < n:
            self._drop_seen()
            if not self.queue and self._may_call():
                self._call(max(self.batch, n - len(out)))
                continue
            if self.queue:
                out.append(self.queue.popleft())
                continue
            proposals = self.partner.ask(n - len(out))
            self.partner_turns = max(0, self.partner_turns - len(proposals))
            out.extend(proposals)
            break
        return out

    def tell(self, results: Sequence[Told]) -> None:
        for told in results:
            self.history.pop(told.genome_id, None)
            self.history[told.genome_id] = told
            self.seen.add(identity(told.params, told.code))
            if told.objective is not None and (self.best is None or told.objective < self.best):
                self.best = told.objective
                operator = (told.detail or {}).get("operator") or ""
                if operator.startswith("llm:") and operator[4:].isdigit():
                    self.last_best_call = max(self.last_best_call, int(operator[4:]))
        self.partner.tell(results)

    # -- the call ----------------------------------------------------------------------------
    def _may_call(self) -> bool:
        spent = self.calls is not None and self.transcript.count >= self.calls
        if self.patience is not None and not self.stalled and self.transcript.count - self.last_best_call >= self.patience:
            self.stalled = True
            self._say(f"no new best from the last {self.patience} calls; {self.partner.name} proposes from here")
        return not spent and not self.stalled and self.partner_turns == 0

    def _drop_seen(self) -> None:
        while self.queue and identity(self.queue[0].params, self.queue[0].code) in self.seen:
            self.queue.popleft()  # evaluated since it was queued (the partner proposed it too)

    def _call(self, k: int) -> None:
        call = self.transcript.count + 1
        messages = [{"role": "system", "content": self.system}, {"role": "user", "content": self.brief_text},
                    {"role": "user", "content": self.situation(k)}]
        entry: dict[str, Any] = {
            "call": call, "time": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "endpoint": self.chat.endpoint.describe(), "brief": self.brief_sources,
            "brief_notes": list(self.brief.notes), "asked": k, "seed": self.seed + call, "messages": messages}
        self.notes, self.outside = [], []
        started = time.monotonic()
        try:
            reply = self.chat.chat(messages, seed=self.seed + call)
        except LlmError as exc:
            error = self.chat.endpoint.masked(str(exc))
            entry["error"] = error
            self.transcript.record(entry)
            if exc.fatal or self.transcript.answered == 0:
                # the endpoint never answered this run (its earlier sessions included): a wrong URL,
                # key or model, not a passing fault; one that has answered is only failing for now
                raise UserError(f"--strategy llm: {error} (call {call}; llm/calls.jsonl keeps it)") from None
            self._hand_to_partner(call, f"failed: {error}")
            return
        except BaseException as exc:
            # Ctrl-C, or a fault no handler expects: the prompt already sent is kept, then the run
            # stops as it would without an LLM (its rows kept, resumable)
            self._record_unanswered(entry, exc, time.monotonic() - started)
            raise
        entry.update(reply=reply.text, model=reply.model, finish_reason=reply.finish_reason,
                     seconds=round(reply.seconds, 3), usage=reply.usage)
        skipped: list[str] = []
        try:
            suggestions = parse_reply(reply.text, self.space, skipped)
        except UnreadableReply as exc:
            cut = reply.finish_reason == "length"
            entry["unreadable"] = str(exc) + (" (the answer was cut at the token limit)" if cut else "")
            self.transcript.record(entry)
            self.notes.append(f"Your previous answer (call {call}) could not be read: {exc}. "
                              + ("It was cut at the token limit: propose fewer genomes, or shorter code. " if cut else "")
                              + "Answer with the JSON object only.")
            self._hand_to_partner(call, f"unreadable answer: {exc}")
            return
        fresh, repeats = [], []
        queued = {identity(p.params, p.code) for p in self.queue}
        for s in suggestions:
            key = identity(s.params, s.code)
            if key in self.seen or key in queued:
                repeats.append(s)
                continue
            queued.add(key)
            parents = (s.parent,) if s.parent in self.history else ()
            fresh.append(Proposal(s.params, f"llm:{call}", parents, s.code))
            # the loop records such a genome as a failed attempt but tells no strategy of it (it has
            # no id): the model hears the reason here
            problems = self.space.violations(s.params) + code_violations(s.code or {}, self.regions)
            if problems:
                self.outside.append((s.params, s.code, problems))
        entry["proposed"] = [{"params": self._changed(s.params), "code": s.code, "from": s.parent, "why": s.why,
                              "repeat": any(s is r for r in repeats)} for s in suggestions]
        if skipped:  # items that were no genome at all: left out, and the model is told which
            entry["skipped"] = skipped
            self.notes.append(f"Of your call {call}, these items could not be read and were left out: "
                              + "; ".join(skipped[:5]) + ".")
        self.transcript.record(entry)
        self.queue.extend(fresh)
        if repeats:
            self.notes.append(f"{len(repeats)} of the {len(suggestions)} genomes of your call {call} had been "
                              f"evaluated or proposed already: " + "; ".join(
                                  self._text(s.params, s.code) for s in repeats[:5]))
        if not fresh:
            self._hand_to_partner(call, f"no new genome ({len(repeats)} repeats of {len(suggestions)})")
            return
        usage = reply.usage.get("total_tokens")
        self._say(f"call {call}: {len(fresh)} genomes in {reply.seconds:.1f} s"
                  + (f", {len(repeats)} repeats left out" if repeats else "")
                  + (f", {usage} tokens" if usage else ""))

    def _record_unanswered(self, entry: dict[str, Any], exc: BaseException, seconds: float) -> None:
        if isinstance(exc, KeyboardInterrupt):
            error = f"interrupted after {seconds:.1f} s, before an answer"
        else:
            error = self.chat.endpoint.masked(f"{type(exc).__name__}: {exc}")
        entry.update(error=error, seconds=round(seconds, 3))
        self.transcript.record(entry)

    def _hand_to_partner(self, call: int, why: str) -> None:
        self.partner_turns = self.batch
        self._say(f"call {call} {why}; {self.partner.name} proposes the next {self.batch}")

    def _say(self, line: str) -> None:
        print(f"[llm] {line}", file=self.progress, flush=True)

    # -- what the model is told --------------------------------------------------------------
    def situation(self, k: int) -> str:
        """The results so far and the request: the part of the prompt that changes every call."""
        told = list(self.history.values())
        lines = [f"# Results so far: {len(told)} genomes evaluated"]
        statuses = Counter(_status(t) for t in told)
        if statuses:
            lines.append("By status: " + ", ".join(f"{s} {c}" for s, c in statuses.most_common()))
        defaults = [t for t in told if (t.detail or {}).get("operator") == "default" and t.objective is not None]
        if len(defaults) == 1:
            lines += ["", f"The default genome ({defaults[0].genome_id}, the space's defaults) is the baseline; "
                          f"its times: {_times_text(defaults[0])}"]
        elif defaults:
            # genes that change the problem (the cache format): each problem has its own default
            lines += ["", "The default genomes (the space's defaults, one for each problem the genes that change "
                          "the problem pose, such as the cache format) are the baselines; a genome is scored "
                          "against the default of its own problem:"]
            lines += [f"- {t.genome_id} {self._text(t.params, t.code)}\n  times: {_times_text(t)}" for t in defaults]
        lines += ["", "Score: the geometric mean over the workloads of the genome's time over the baseline's "
                      "(lower is better; 1.0 = the baseline)."]
        ok = sorted((t for t in told if t.objective is not None), key=lambda t: t.objective)
        if ok:
            lines += ["", f"## Best {min(BEST_SHOWN, len(ok))} (genes changed from the defaults)"]
            lines += [f"- {t.genome_id} score {t.objective:.4f} {self._text(t.params, t.code)}{_resources(t)}\n"
                      f"  times: {_times_text(t)}" for t in ok[:BEST_SHOWN]]
            coded = [t for t in ok if t.code][:CODE_SHOWN]
            for t in coded:
                lines += ["", f"### The rewritten regions of {t.genome_id} (score {t.objective:.4f})"]
                lines += [f"{name}:\n```\n{text}\n```" for name, text in sorted(t.code.items())]
        patterns = self._failure_patterns(told)
        if patterns:
            lines += ["", "## Gene values that mostly fail (at least 3 tried)"] + patterns
        failed = [t for t in told if t.objective is None][-FAILURES_SHOWN:]
        if failed:
            lines += ["", f"## Latest {len(failed)} failures"]
            lines += [f"- {t.genome_id} {_status(t)} {self._text(t.params, t.code)}: {(t.detail or {}).get('error') or ''}"
                      for t in failed]
        last = self.transcript.count
        mine = [t for t in told if (t.detail or {}).get("operator") == f"llm:{last}"]
        if mine or self.outside:
            lines += ["", f"## Your genomes of call {last}"]
            lines += [f"- {t.genome_id} {self._text(t.params, t.code)}: "
                      + (f"score {t.objective:.4f}" if t.objective is not None else _status(t)) for t in mine]
            lines += [f"- {self._text(params, code)}: invalid_genome, outside the space: " + "; ".join(problems)
                      for params, code, problems in self.outside]
        if self.notes:
            lines += [""] + self.notes
        lines += ["", f"Propose {k} new genomes, each different from every genome above and from each other."]
        return "\n".join(lines)

    def _failure_patterns(self, told: list[Told]) -> list[str]:
        """Gene values most of whose genomes failed, with the statuses: what to stop proposing."""
        tried: dict[tuple[str, str], list[Told]] = {}
        for t in told:
            for name, value in t.params.items():
                tried.setdefault((name, json.dumps(value)), []).append(t)
        rows = []
        for (name, value), members in tried.items():
            failures = Counter(_status(t) for t in members if t.objective is None)
            n_failed = sum(failures.values())
            if len(members) >= 3 and 2 * n_failed >= len(members):
                rows.append((n_failed, f"- {name}={value}: {n_failed} of {len(members)} failed ("
                                       + ", ".join(f"{s} {c}" for s, c in failures.most_common()) + ")"))
        return [text for _, text in sorted(rows, key=lambda r: -r[0])[:PATTERNS_SHOWN]]

    def _changed(self, params: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in params.items() if k not in self.defaults or self.defaults[k] != v}

    def _text(self, params: dict[str, Any], code: Mapping[str, str] | None) -> str:
        changed = self._changed(params)
        text = canonical_json(changed) if changed else "(the defaults)"
        return text + (f" +code {','.join(sorted(code))}" if code else "")


def _status(told: Told) -> str:
    return (told.detail or {}).get("status") or ("ok" if told.objective is not None else "failed")


def _times_text(told: Told) -> str:
    times = (told.detail or {}).get("times_us") or {}
    layer = (told.detail or {}).get("layer_us") or {}  # evolve --e2e: the decode layer with this kernel
    return (" ".join(f"{name}={us:.2f}us" for name, us in times.items()) or "(none)") + (
        "; decode layer: " + " ".join(f"{name}={us:.1f}us" for name, us in layer.items()) if layer else "")


def _resources(told: Told) -> str:
    d = told.detail or {}
    if d.get("registers") is None:
        return ""
    code = f" code {d['code_bytes'] / 1024:.0f} KB" if d.get("code_bytes") is not None else ""
    return f" regs {d['registers']} spill {d.get('spill_bytes') or 0} B{code}"
