"""Summaries of a finished (or running) run: best genome per workload, failures by status."""

from __future__ import annotations

import functools
import json
from collections import Counter
from pathlib import Path
from typing import Any, Callable, TextIO

from engine.baselines import reference_name
from engine.errors import UserError
from engine.faults import expected_statuses
from engine.genome import canonical_json
from engine.llm.transcript import read_calls
from engine.run_folder import read_config, template_of_run
from engine.scoring import attention_inside_layer, workload_times
from engine.store.reader import read_records
from engine.template import Template, key_values


def best_per_workload(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """workload name -> {record, workload figures} of the fastest ok genome there."""
    best: dict[str, dict[str, Any]] = {}
    for r in records:
        if r["kind"] != "genome" or r["status"] != "ok":
            continue
        for w in r["workloads"]:
            cur = best.get(w["name"])
            if cur is None or w["median_us"] < cur["workload"]["median_us"]:
                best[w["name"]] = {"record": r, "workload": w}
    return best


def problem_groups(records: list[dict[str, Any]], genes: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Genomes split by the genes that change the problem (the cache format, ...): a genome
    reading an FP8 cache solves another problem than one reading bf16, so their times are
    shown apart. One group, named "", when the template has no such genes."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        if r["kind"] != "genome" or not r["params_json"]:
            continue
        groups.setdefault(group_name(json.loads(r["params_json"]), genes), []).append(r)
    return groups


def group_name(params: dict[str, Any], genes: list[str]) -> str:
    """The name of a problem group: "KV_FORMAT=fp8_656", ... ("" without problem genes)."""
    return key_values({g: params.get(g) for g in genes})


def references_by_group(records: list[dict[str, Any]], genes: list[str]) -> dict[str | None, dict[str, Any]]:
    """The reference rows by the problem group they solved; None for a row that records no
    problem (runs from before each problem had its own: it solved the problem's defaults)."""
    return {group_name(json.loads(r["params_json"]), genes) if r["params_json"] else None: r
            for r in records if r["kind"] == "reference"}


def _run_template(run_dir: Path, config) -> Template | None:
    try:
        return template_of_run(run_dir, config)
    except UserError:  # the template is gone and no copy was kept: show the run ungrouped, genes in full
        return None


def show(run_dir: Path, out: TextIO, top: int = 5) -> None:
    config = read_config(run_dir)
    records = read_records(run_dir)
    genomes = [r for r in records if r["kind"] == "genome"]
    cpu = any(r["cpu_row"] for r in records)
    env = next((r["env"] for r in records if r["env"]), None) or {}
    print(f"run {config.run_id}: {config.template} ({config.strategy}, seed {config.seed}), "
          f"{len(genomes)} genome attempts", file=out)
    print(f"device: {env.get('gpu', '?')}  torch {env.get('torch', '?')}  triton {env.get('triton', '?')}"
          + ("  [CPU rows: interpreter timings, not GPU figures]" if cpu else "")
          + (f"  (built for {', '.join(map(str, config.build_sm_counts))} SMs: only the code the calls launch there)"
             if config.build_sm_counts else ""), file=out)
    counts = Counter(r["status"] for r in genomes)
    print("status: " + ", ".join(f"{s} {n}" for s, n in counts.most_common()), file=out)
    # by the operator's family: the LLM's genomes are labelled llm:<call>
    families = Counter(r["operator"].split(":")[0] for r in genomes)
    ok = Counter(r["operator"].split(":")[0] for r in genomes if r["status"] == "ok")
    if len(families) > 1:
        print("operators: " + ", ".join(f"{f} {n} ({ok[f]} ok)" for f, n in families.most_common()), file=out)
    llm = llm_summary(run_dir / "llm")
    if llm:
        print(llm, file=out)
    template = _run_template(run_dir, config)
    genes = template.problem_genes if template else []
    defaults = template.load_space().default_params() if template else None
    if defaults is not None:
        print("genomes are shown by the genes they change from the space's defaults, and their problem genes "
              "(`eval --genome` takes them so)", file=out)
    describe = functools.partial(genome_text, defaults=defaults, keep=genes)
    groups = problem_groups(records, genes)
    leaders: list[dict[str, Any]] = []
    for group, members in groups.items():  # scores of one problem share a baseline: its default genome
        leaders += _print_top(members, group, top, describe, out)
    references = references_by_group(records, genes)
    fastest = {gid: names for members in groups.values() for gid, names in fastest_inside_layer(members).items()}
    listed = list(references.values()) + leaders
    seen = {r["genome_id"] for r in listed}
    for members in groups.values():  # the fastest inside the layer, where their scores left them off the top
        for r in members:
            if r["genome_id"] in fastest and r["status"] == "ok" and r["genome_id"] not in seen:
                listed.append(r)
                seen.add(r["genome_id"])
    _print_e2e(listed, out, fastest)
    for group, members in groups.items():
        # the group's own PyTorch path; an older run's one path solved the default problem only
        reference = references.get(group) or references.get(None)
        ref_times = workload_times(reference) if reference and reference["status"] == "ok" else {}
        _print_best(best_per_workload(members), ref_times, group, group in references, describe, out)
    pareto = run_dir / "pareto.json"
    if pareto.is_file():
        _print_pareto(pareto, out)
    injected = [r for r in records if r["kind"] == "injected"]
    if injected:
        wrong = [r for r in injected if r["status"] not in expected_statuses(r["operator"])]
        print(f"\ninjected faults: {len(injected)}, {len(injected) - len(wrong)} with the expected status", file=out)
        for r in wrong:
            print(f"  UNEXPECTED {r['operator']}: {r['status']} {(r['error'] or '')[:120]}", file=out)
    _print_compiler_notes(genomes, out)
    failures = [r for r in genomes if r["status"] != "ok"]
    if failures:
        print("\nfailures (first of each status):", file=out)
        for status in sorted({r["status"] for r in failures}):
            r = next(f for f in failures if f["status"] == status)
            print(f"  {status}: {(r['error'] or '')[:160]}", file=out)


def llm_summary(folder: Path) -> str:
    """The LLM operator's calls in one line (llm/calls.jsonl holds each): a run's cost and how
    often the model's answers were of use."""
    calls = read_calls(folder, restore=False)
    if not calls:
        return ""
    failed = sum("error" in c for c in calls)
    unreadable = sum("unreadable" in c for c in calls)
    proposed = sum(len(c.get("proposed", [])) for c in calls)
    repeats = sum(p.get("repeat", False) for c in calls for p in c.get("proposed", []))
    tokens = sum((c.get("usage") or {}).get("total_tokens", 0) for c in calls)
    seconds = sum(c.get("seconds") or 0 for c in calls)
    models = sorted({c.get("model") or c["endpoint"]["model"] for c in calls})
    return (f"llm: {len(calls)} calls to {', '.join(models)} ({failed} failed, {unreadable} unreadable), "
            f"{proposed} genomes proposed ({repeats} repeats), {tokens} tokens, {seconds:.0f} s (llm/calls.jsonl)")


def fastest_inside_layer(members: list[dict[str, Any]]) -> dict[str, list[str]]:
    """genome ID -> the e2e workloads at which its attention took the least time inside the decode
    layer among one problem's ok genomes (one of a row's workloads each)."""
    best: dict[str, tuple[float, str]] = {}
    for r in members:
        if r["status"] != "ok":
            continue
        for name, (t, _) in attention_inside_layer(r).items():
            if name not in best or t < best[name][0]:
                best[name] = (t, r["genome_id"])
    fastest: dict[str, list[str]] = {}
    for name, (_, gid) in best.items():
        fastest.setdefault(gid, []).append(name)
    return fastest


def _print_e2e(records: list[dict[str, Any]], out: TextIO, fastest: dict[str, list[str]] | None = None) -> None:
    """The decode layer with each kernel in it (evolve --e2e), for the reference path, the top
    genomes and each problem's fastest inside the layer at each workload (marked *, listed even
    when its score is not among the top: a kernel can win alone what the layer takes back): the
    layer's time, the layer without attention, the difference, the kernel alone."""
    fastest = fastest or {}
    rows = [(r, e) for r in records for e in r.get("e2e") or []]
    if not rows:
        return
    us = lambda v: f"{v:.1f}" if v is not None else "-"  # noqa: E731
    print("\ninside the decode layer (one CUDA graph a step; us): layer, layer without attention, "
          "attention inside, attention alone; * the fastest attention inside the layer of its problem "
          "at that workload", file=out)
    print(f"  {'workload':<14}{'layer':>10}{'without':>10}{'inside':>10}{'alone':>10}  genome", file=out)
    for r, e in rows:
        who = r["genome_id"]
        if r["kind"] == "reference":  # the problem genes' values it solved, where it records them
            who = reference_name(r)
        mark = "*" if e["name"] in fastest.get(r["genome_id"], ()) else " "
        print(f"  {e['name']:<14}{us(e['step_us']):>10}{us(e['rest_us']):>10}{us(e['attention_us']):>9}{mark}"
              f"{us(e['alone_us']):>10}  {who}", file=out)


def genome_text(record: dict[str, Any], defaults: dict[str, Any] | None = None, keep: list[str] = ()) -> str:
    """A genome's parameters (with ``defaults``: only those that differ from them, and the genes
    ``keep`` names), and the regions an LLM rewrote (their text is in code_json)."""
    text = record["params_json"]
    if defaults is not None:
        params = json.loads(text)
        text = canonical_json({k: v for k, v in params.items() if k in keep or defaults.get(k) != v})
    code = json.loads(record["code_json"]) if record.get("code_json") else {}
    return text + (f" +code {','.join(sorted(code))}" if code else "")


def _print_top(members: list[dict[str, Any]], group: str, top: int, describe: Callable[[dict], str],
               out: TextIO) -> list[dict[str, Any]]:
    """The best-scored genomes of one problem group, printed; returns them. A group's genomes may
    be scored against more than one baseline (its own default failed, or a run resumed from
    before each problem had one), so the header names each."""
    scored = sorted((r for r in members if r["score"] is not None), key=lambda r: r["score"])[:top]
    if scored:
        against = ", ".join(dict.fromkeys(r["baseline"] for r in scored))
        print(f"\ntop {len(scored)} by score{' for ' + group if group else ''} "
              f"(geomean time relative to {against}):", file=out)
        for r in scored:
            print(f"  {r['score']:.3f}  {r['genome_id']}  {describe(r)}", file=out)
    return scored


def _print_best(best: dict[str, dict[str, Any]], ref_times: dict[str, float], group: str, own_reference: bool,
                describe: Callable[[dict], str], out: TextIO) -> None:
    """``own_reference``: the reference path's times are of the group's own problem; else an
    older run's one path stands in, which solved the default problem."""
    if not best:
        return
    solved = ", on the same problem" if own_reference and group else (", on the default problem" if group else "")
    print(f"\nbest genome per workload{' for ' + group if group else ''} (median us, IQR, TFLOP/s, fraction "
          f"of roofline floor; PyTorch reference path from the same run{solved}):", file=out)
    print(f"  {'workload':<14}{'best us':>10}{'iqr':>8}{'TFLOP/s':>9}{'roofline':>9}{'torch us':>10}"
          f"{'speedup':>9}  genome", file=out)
    for name, b in best.items():
        w = b["workload"]
        ref = ref_times.get(name)
        frac = f"{w['roofline_frac']:.2f}" if w.get("roofline_frac") is not None else "-"
        ref_text = f"{ref:.1f}" if ref else "-"
        speedup = f"{ref / w['median_us']:.2f}x" if ref else "-"
        genome = b["record"]
        print(f"  {name:<14}{w['median_us']:>10.1f}{w['iqr_us']:>8.1f}{w['tflops']:>9.1f}{frac:>9}"
              f"{ref_text:>10}{speedup:>9}  {genome['genome_id']} {describe(genome)}", file=out)


def _print_compiler_notes(genomes: list[dict[str, Any]], out: TextIO, most: int = 5) -> None:
    """How many built genomes the compiler warned about or advised on, and its most frequent
    notes: a note on every genome is the template's (its author's to fix); a wgmma serialization
    advisory (C7510-C7520) explains a slow genome that nothing else flags."""
    noted = [r for r in genomes if r.get("compiler_notes")]
    if not noted:
        return
    counts = Counter(note for r in noted for note in r["compiler_notes"])
    built = sum(1 for r in genomes if r.get("compiler_notes") is not None)
    print(f"\ncompiler notes on {len(noted)} of {built} genomes built by nvcc (most frequent first; "
          "`python -m engine compile` prints a genome's):", file=out)
    for note, n in counts.most_common(most):
        print(f"  {n:>5}  {note[:160]}", file=out)
    if len(counts) > most:
        print(f"  ... and {len(counts) - most} other notes", file=out)


def _print_pareto(path: Path, out: TextIO) -> None:
    """The front evolve wrote; a file that does not read as one is said in a line (the rows hold
    everything it was derived from: the next evolve of the run writes it again)."""
    try:
        data = json.loads(path.read_text())
        lines = [f"\nPareto front over {', '.join(data['objectives'])} ({len(data['front'])} genomes, pareto.json):"]
        for p in data["front"]:  # one front a problem (cache format); older files have no "problem"
            values = "  ".join(f"{k}={v:.4g}" for k, v in p["objectives"].items())
            problem = key_values(p.get("problem") or {})
            lines.append(f"  {p['genome_id']}  {values}" + (f"  ({problem})" if problem else ""))
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as exc:
        lines = [(f"\n{path}: not a readable Pareto front ({type(exc).__name__}: {exc}); the next evolve of "
                  "the run writes it again")]
    print("\n".join(lines), file=out)
