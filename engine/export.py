"""Export a run's winners as kernel sources with a dispatch table: each winner only on the
workloads where it measurably beats the default kernel, both timed in the same run.

A genome reading an FP8 cache solves another problem than one reading bf16, so each group of
genomes that share the template's problem arguments gets its own default and its own entries.
A measured workload covers the shapes from just past the next smaller measured batch (and
context) up to its own; a shape past the largest measured one goes to the default kernel: the
table never extrapolates. Among the genomes that beat the default at a workload, those not
measurably slower than the fastest count as equals, and the table takes the fewest kernels from them
(a kernel a shape range because of noise would be a kernel more to ship and trust).

A CUDA template's kernels ship built too, where nvcc is present: each ``kernels/ID.cubin`` with
the flags the run built with, its resource figures beside the run's in the table. Figures that
differ say the compiler here is not the run's: the binary is then not the one that was timed."""

from __future__ import annotations

import itertools
import json
import math
import pprint
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, TextIO

import evaluators
from engine.baselines import reference_problem
from engine.errors import UserError
from engine.run_folder import build_target_of, read_config, searched_space, template_of_run
from engine.scoring import attention_inside_layer
from engine.store.reader import read_records
from engine.template import RenderError, Template, key_values
from evaluators.build_target import BuildTarget
from evaluators.cuda_compile import BUILD_CACHE, DEFAULT_FLAGS, GENCODE, RESOURCE_FIELDS, compile_cuda, nvcc_version

SOURCE_SUFFIX = {"cuda": ".cu", "triton": ".py"}
SHIPPED = Path(__file__).resolve().parent / "shipped"
EVALUATORS = Path(evaluators.__file__).resolve().parent
REFERENCE = "reference"  # --default reference: the run's PyTorch reference path (the model's path without a kernel)
DEFAULT_MIN_GAIN = 0.02  # a winner must be at least this much faster than the default (median over median)


@dataclass(frozen=True)
class Timing:
    median_us: float
    iqr_us: float


def _alone_times(record: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """A row's (median, IQR) per workload timed alone."""
    return {w["name"]: (w["median_us"], w.get("iqr_us") or 0.0) for w in record["workloads"] or [] if w.get("median_us")}


def _times(rows: list[dict[str, Any]], pick, of=_alone_times) -> dict[str, Timing]:
    """One genome's timing per workload over its ok rows, the row ``pick`` (min or max) chooses;
    ``of`` reads a row's times: alone, or ``attention_inside_layer`` (inside the model's decode
    layer, the step's IQR as the spread)."""
    per: dict[str, list[Timing]] = {}
    for r in rows:
        for name, (us, iqr) in of(r).items():
            per.setdefault(name, []).append(Timing(us, iqr))
    return {name: pick(ts, key=lambda t: t.median_us) for name, ts in per.items()}


def judged_times(alone: dict[str, Timing], in_layer: dict[str, Timing], layer_workloads: set[str]) -> dict[str, Timing]:
    """A genome's times as the table judges them: inside the decode layer at the workloads the
    default was timed there (what a model gets; alone, a kernel can win by what the layer's
    neighbours take back), alone elsewhere. At such a workload a genome not timed in the layer
    has no time: one figure per workload, never one kind against the other."""
    times = {name: t for name, t in alone.items() if name not in layer_workloads}
    times.update({name: t for name, t in in_layer.items() if name in layer_workloads})
    return times


def layer_caveat(entry: dict[str, Any], entries: list[dict[str, Any]], times: dict[str, dict[str, Timing]]) -> str:
    """For an entry judged alone: where the same batches were also timed inside the decode layer
    (another context) and its kernel was measurably slower there than the kernel chosen there, the
    figures, so that the user knows what judging it alone may have missed; else ""."""
    if entry["timed"] != "alone":
        return ""
    notes = []
    for other in entries:
        if (other["timed"] != "alone" and other["batch"] == entry["batch"] and other["heads"] == entry["heads"]
                and other["topk"] == entry["topk"] and other["genome_id"] != entry["genome_id"]):
            mine = times.get(entry["genome_id"], {}).get(other["workload"])
            chosen = Timing(other["median_us"], other["iqr_us"])
            if mine and beats(chosen, mine, 0.0):
                notes.append(f"inside the decode layer at {other['workload']} this kernel took {mine.median_us:.1f} us "
                             f"against {chosen.median_us:.1f} for {other['genome_id']}, the kernel chosen there")
    return "; ".join(notes)


def beats(candidate: Timing, default: Timing, min_gain: float) -> bool:
    """Faster by at least ``min_gain`` of the candidate's median, and with the two interquartile
    ranges apart (centred on the medians): a gain inside the spread is not a measured one."""
    return (default.median_us >= candidate.median_us * (1.0 + min_gain)
            and candidate.median_us + candidate.iqr_us / 2 < default.median_us - default.iqr_us / 2)


def contenders(timings: dict[str, Timing], default: Timing, min_gain: float) -> dict[str, Timing]:
    """The genomes that measurably beat the default at one workload and are not measurably slower
    than the fastest of them (their interquartile ranges meet the fastest's)."""
    winners = {gid: t for gid, t in timings.items() if beats(t, default, min_gain)}
    if not winners:
        return {}
    best = min(winners.values(), key=lambda t: t.median_us)
    return {gid: t for gid, t in winners.items()
            if t.median_us - t.iqr_us / 2 <= best.median_us + best.iqr_us / 2}


# combinations of contenders tried for a smaller or faster cover than the greedy one; past it the
# greedy cover stands (a run's groups have tens of contenders: nowhere near it)
COVER_SEARCH_LIMIT = 200_000


def fewest_kernels(contending: dict[str, dict[str, Timing]]) -> dict[str, str]:
    """workload -> the genome to run there, from each workload's contenders: the fewest genomes
    that contend at every workload with a contender, and of such sets the one with the smallest
    summed time (each workload to its fastest member of the set; on a tie, the smaller id). A
    workload with no contender is left out (the default's). Exact by enumeration; the greedy
    cover (the genome contending at the most open workloads first) bounds the search, and
    stands where enumeration would pass COVER_SEARCH_LIMIT."""
    open_ = {name: c for name, c in contending.items() if c}
    greedy = _greedy_cover(open_)
    gids = sorted({g for c in open_.values() for g in c})
    tried = 0
    for k in range(1, len(set(greedy.values())) + 1):
        tried += math.comb(len(gids), k)
        if tried > COVER_SEARCH_LIMIT:
            return greedy
        best: tuple[float, tuple[str, ...]] | None = None
        for combo in itertools.combinations(gids, k):
            members = set(combo)
            if all(members & c.keys() for c in open_.values()):
                cost = sum(min(c[g].median_us for g in members & c.keys()) for c in open_.values())
                if best is None or cost < best[0]:
                    best = (cost, combo)
        if best is not None:
            members = set(best[1])
            return {name: min(members & c.keys(), key=lambda g, c=c: (c[g].median_us, g))
                    for name, c in open_.items()}
    return greedy


def _greedy_cover(open_: dict[str, dict[str, Timing]]) -> dict[str, str]:
    """The genome that contends at the most workloads still open takes them all (on a tie, the
    one with the smaller summed time there), then the next."""
    open_ = dict(open_)
    chosen: dict[str, str] = {}
    while open_:
        reach: dict[str, list[str]] = {}
        for name, c in open_.items():
            for gid in c:
                reach.setdefault(gid, []).append(name)
        gid = min(reach, key=lambda g: (-len(reach[g]), sum(open_[n][g].median_us for n in reach[g]), g))
        for name in reach[gid]:
            chosen[name] = gid
            del open_[name]
    return chosen


def covered_ranges(values: list[int]) -> dict[int, list[int]]:
    """Each measured value -> [first, last] of the shapes it covers: from just past the next
    smaller measured value (or 1) up to itself."""
    ranges, lo = {}, 1
    for v in sorted(set(values)):
        ranges[v] = [lo, v]
        lo = v + 1
    return ranges


def _ok_genome_rows(run_dir: Path, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = [r for r in records if r["kind"] == "genome" and r["status"] == "ok" and r["params_json"]]
    cpu = [r["genome_id"] for r in rows if r["cpu_row"]]
    if cpu:
        raise UserError(f"{run_dir}: {len(cpu)} ok rows (genome {cpu[0]}, ...) hold interpreter timings from a "
                        "CPU run; export needs GPU timings")
    gpus = sorted({(r["env"] or {}).get("gpu") or "?" for r in rows})
    if len(gpus) > 1:
        raise UserError(f"{run_dir}: the ok rows were timed on {len(gpus)} kinds of device ({', '.join(gpus)}); "
                        "a dispatch table compares figures of one device only")
    return rows


def _defaults(template: Template, params_of: dict[str, dict[str, Any]], operator_of: dict[str, str],
              named: list[str], reference_ids: dict[str, str], run_dir: Path, fixed: Mapping[str, Any]) -> dict[str, str]:
    """group key -> the default kernel's genome id: each named genome in its group, and with
    ``reference`` named, each other problem's reference row (``reference_ids``: problem key -> its
    id); else the run's default genome (the row the loop made its baseline); else the genome of the
    space's (or the run's slice's) defaults with the group's problem genes, where the run
    evaluated it."""
    chosen: dict[str, str] = {}
    for gid in named:
        if gid == REFERENCE:
            continue
        if gid not in params_of:
            raise UserError(f"--default {gid}: no ok genome of that id in {run_dir}")
        key = template.problem_key(params_of[gid])
        if key in chosen and chosen[key] != gid:
            raise UserError(f"--default {gid} and --default {chosen[key]} both solve problem {key}: name one")
        chosen[key] = gid
    if REFERENCE in named:  # the PyTorch path of every problem no genome was named for
        chosen = {**reference_ids, **chosen}
    space = template.load_space()
    space_default = searched_space(run_dir, space, dict(fixed)).default_params()
    genes = template.problem_genes
    for gid in sorted(params_of, key=lambda g: operator_of[g] != "default"):  # the run's own default first
        params = params_of[gid]
        key = template.problem_key(params)
        if key not in chosen and (operator_of[gid] == "default"
                                  or params == {**space_default, **{g: params[g] for g in genes}}):
            chosen[key] = gid
    return chosen


def _entries(shapes: dict[str, dict[str, Any]], default_times: dict[str, Timing],
             candidates: dict[str, dict[str, Timing]], min_gain: float,
             layer_workloads: frozenset[str] | set[str] = frozenset()) -> list[dict[str, Any]]:
    """One entry per workload the default was timed on (elsewhere there is nothing to beat), in
    order of (heads, topk, batch, context), with the shapes it covers among the workloads of its
    heads and topk, its winner (None: the default's), and where its times were taken."""
    chosen = fewest_kernels({name: contenders({gid: t[name] for gid, t in candidates.items() if name in t},
                                              default_times[name], min_gain)
                             for name in shapes if name in default_times})
    entries = []
    for (heads, topk), names in _by_heads_topk(shapes).items():
        names = [n for n in names if n in default_times]
        batches = covered_ranges([shapes[n]["batch"] for n in names])
        contexts = covered_ranges([shapes[n]["context"] for n in names])
        for name in names:
            w, base, gid = shapes[name], default_times[name], chosen.get(name)
            mine = candidates[gid][name] if gid else base
            entries.append({"workload": name, "heads": heads, "topk": topk, "batch": batches[w["batch"]],
                            "context": contexts[w["context"]], "winner": gid, "median_us": mine.median_us,
                            "iqr_us": mine.iqr_us, "default_median_us": base.median_us,
                            "default_iqr_us": base.iqr_us,
                            "timed": "in the decode layer" if name in layer_workloads else "alone"})
    return entries


def _by_heads_topk(shapes: dict[str, dict[str, Any]]) -> dict[tuple[int, int], list[str]]:
    groups: dict[tuple[int, int], list[str]] = {}
    for name, w in sorted(shapes.items(), key=lambda kv: (kv[1]["heads"], kv[1]["topk"], kv[1]["batch"],
                                                           kv[1]["context"])):
        groups.setdefault((w["heads"], w["topk"]), []).append(name)
    return groups


def build_table(run_dir: Path, named_defaults: list[str] | None = None,
                min_gain: float = DEFAULT_MIN_GAIN) -> tuple[dict[str, Any], Template]:
    """The dispatch table of a run (as dispatch.json holds it) and the template it was made with."""
    if not (math.isfinite(min_gain) and min_gain >= 0):  # NaN would pass `< 0` and ship no winner
        raise UserError(f"--min-gain {min_gain}: a gain is a finite fraction, not negative")
    config = read_config(run_dir)
    template = template_of_run(run_dir, config)
    records = read_records(run_dir)
    rows = _ok_genome_rows(run_dir, records)
    if not rows:
        raise UserError(f"{run_dir}: no genome evaluated ok; nothing to export")
    by_genome: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_genome.setdefault(r["genome_id"], []).append(r)
    params_of = {gid: json.loads(rs[0]["params_json"]) for gid, rs in by_genome.items()}
    code_of = {gid: json.loads(rs[0]["code_json"]) for gid, rs in by_genome.items() if rs[0].get("code_json")}
    references: dict[str, list[dict[str, Any]]] = {}  # problem key -> its PyTorch path's rows
    for r in records:
        if r["kind"] == "reference" and r["status"] == "ok":
            references.setdefault(reference_problem(template, r), []).append(r)
    if REFERENCE in (named_defaults or []) and not references:
        raise UserError(f"--default {REFERENCE}: {run_dir} holds no reference row evaluated ok")
    reference_ids = {key: rs[0]["genome_id"] for key, rs in references.items()}
    defaults = _defaults(template, params_of, {gid: rs[0]["operator"] for gid, rs in by_genome.items()},
                         named_defaults or [], reference_ids, run_dir, config.fixed)
    groups: dict[str, list[str]] = {}
    for gid, params in params_of.items():
        groups.setdefault(template.problem_key(params), []).append(gid)
    kernels: dict[str, dict[str, Any]] = {}

    def kernel(gid: str) -> str:
        name = f"kernels/{gid}{SOURCE_SUFFIX[template.language]}"
        kernels[gid] = {"source": name, "params": params_of[gid],
                        "run_resources": {k: by_genome[gid][0].get(k) for k in RESOURCE_FIELDS}}
        if by_genome[gid][0].get("build_sm_counts"):  # the GPUs the run built it for (its row's, schema 8)
            kernels[gid]["run_build_sm_counts"] = by_genome[gid][0]["build_sm_counts"]
        if gid in code_of:  # regions an LLM rewrote: the kernel is not the template's own code
            kernels[gid]["code"] = code_of[gid]
        return name

    out_groups = []
    for key, members in sorted(groups.items()):
        problem = json.loads(key)
        default_id = defaults.get(key)
        group: dict[str, Any] = {"problem": problem, "default": None, "entries": [], "note": ""}
        out_groups.append(group)
        if default_id is None:
            group["note"] = ("no default kernel was evaluated in this run for this problem; every shape is left to "
                             "the caller's own (name one with --default GENOME_ID)")
            continue
        # the reference path ships no kernel: select() then says None, the caller's own path
        is_reference = default_id == reference_ids.get(key)
        if REFERENCE in (named_defaults or []) and key not in reference_ids:
            group["note"] = (f"--default {REFERENCE}: the run holds no PyTorch reference row of this problem "
                             f"evaluated ok; its default genome {default_id} is the default here")
        group["default"] = {"genome_id": default_id, "kernel": None if is_reference else kernel(default_id)}
        default_rows = references[key] if is_reference else by_genome[default_id]
        default_layer = _times(default_rows, min, attention_inside_layer)  # at its best
        layer_workloads = set(default_layer)
        default_times = judged_times(_times(default_rows, min), default_layer, layer_workloads)
        # a candidate at its worst: a genome measured twice must win both times
        candidates = {gid: judged_times(_times(by_genome[gid], max), _times(by_genome[gid], max, attention_inside_layer),
                                        layer_workloads)
                      for gid in members if gid != default_id}
        shapes = {w["name"]: w for gid in members for r in by_genome[gid] for w in r["workloads"] or []}
        for e in _entries(shapes, default_times, candidates, min_gain, layer_workloads):
            gid = e.pop("winner")
            group["entries"].append({**e, "kernel": kernel(gid) if gid else group["default"]["kernel"],
                                     "genome_id": gid or default_id})
        judged = candidates | {default_id: default_times}
        for e in group["entries"]:
            note = layer_caveat(e, group["entries"], judged)
            if note:
                e["note"] = note
    env = {k: v for k, v in (rows[0]["env"] or {}).items() if k != "host"}
    # one kind of GPU, maybe several cards of it (rows older than device_index say none)
    cards = len({r["device_index"] for r in rows if r["device_index"] is not None}) or 1
    table = {"run_id": config.run_id, "template": config.template, "template_hash": config.template_hash,
             "language": template.language, "entry": template.entry, "problem": template.problem,
             "environment": env, "cards": cards, "min_gain": min_gain, "groups": out_groups,
             "kernels": dict(sorted(kernels.items()))}
    return table, template


def export(run_dir: Path, out_dir: Path, out: TextIO, named_defaults: list[str] | None = None,
           min_gain: float = DEFAULT_MIN_GAIN) -> dict[str, Any]:
    """Writes out_dir/dispatch.json, dispatch.py (``select``), README.md and each kernel's source
    rendered from the template the run timed; prints the table. Returns the table."""
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise UserError(f"{out_dir}: exists and is not an empty folder; name another with --out")
    table, template = build_table(run_dir, named_defaults, min_gain)
    sources, timed = {}, {}
    run_target = build_target_of(read_config(run_dir))
    for gid, k in table["kernels"].items():  # all rendered before anything is written
        target = timed_target(k, run_target)
        try:
            # shipped whole (every launch's code: a production call may take any batch); the run
            # built each with only what its calls launched (build variables), the same code for those
            sources[k["source"]] = template.render(k["params"], k.get("code"))
            if target is not None:
                timed[k["source"]] = template.render(k["params"], k.get("code"), target=target)
        except RenderError as exc:
            raise UserError(f"genome {gid} of {run_dir} no longer renders: {exc}") from None
    binaries: dict[str, bytes] = {}
    if template.language == "cuda":  # built, like the sources rendered, before anything is written
        table["cubins"], binaries = build_cubins(table, sources, run_dir, timed)
    try:  # built and rendered above: only the writing can fail here
        (out_dir / "kernels").mkdir(parents=True, exist_ok=True)
        for name, text in sources.items():
            (out_dir / name).write_text(text)
        for name, data in binaries.items():
            (out_dir / name).write_bytes(data)
        (out_dir / "dispatch.json").write_text(json.dumps(table, indent=1) + "\n")
        (out_dir / "dispatch.py").write_text(dispatch_module(table))
        write_launcher(out_dir / "launcher", template.language)
        summary = summary_text(table)
        (out_dir / "README.md").write_text(summary)
    except OSError as exc:
        raise UserError(f"--out {out_dir}: cannot write the export: {exc.strerror or exc}") from None
    out.write(summary)
    print(f"\nwritten: {out_dir}/dispatch.json, dispatch.py, launcher/, README.md, "
          f"{len(table['kernels'])} kernel sources", file=out)
    return table


def timed_target(kernel: Mapping[str, Any], run_target: BuildTarget | None) -> BuildTarget | None:
    """The GPUs a kernel's timed build was for: its row's (schema 8 on), else the run's as run.json
    notes them (older rows; a run resumed on other GPUs notes them all, which may not be this
    kernel's), else None (built whole)."""
    return BuildTarget.of_counts(kernel.get("run_build_sm_counts")) or run_target


def build_cubins(table: dict[str, Any], sources: dict[str, str], run_dir: Path,
                 timed: Mapping[str, str] | None = None) -> tuple[dict[str, Any], dict[str, bytes]]:
    """Each kernel's cubin (by its path in the export), built with the run's flags, its figures
    noted in the table; and what was built with what, or why nothing was. The run's own build
    cache (``RUN/cubins``, kept where the run ran) holds the very binaries it timed; elsewhere the
    project's build cache serves, as for ``engine compile``. ``timed``: the sources as the run
    built them, where they differ from the shipped ones (only the entries its calls launched):
    the run's figures are compared with that build's, and each kernel of it with the shipped
    cubin's kernel of its name."""
    binaries: dict[str, bytes] = {}
    if shutil.which("nvcc") is None:
        return {"built": False, "why": "nvcc is not on PATH here: build each source as the README says"}, binaries
    nvcc = nvcc_version()
    cache = run_dir / "cubins" if (run_dir / "cubins").is_dir() else BUILD_CACHE
    try:  # made here, as `engine compile` makes its --cache: one line, and nothing exported yet
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{cache}: cannot use the build cache ({exc.strerror or exc}); run export from a "
                        "folder where build/ can be made and written") from None
    for gid, k in table["kernels"].items():
        build = compile_cuda(sources[k["source"]], cache)
        if not build.ok:
            raise UserError(f"genome {gid} of {run_dir} no longer builds with {nvcc}: {build.excerpt(600)}")
        k["cubin"] = k["source"].removesuffix(SOURCE_SUFFIX["cuda"]) + ".cubin"
        binaries[k["cubin"]] = Path(build.cubin).read_bytes()
        as_timed = build
        if timed and timed.get(k["source"], sources[k["source"]]) != sources[k["source"]]:
            as_timed = compile_cuda(timed[k["source"]], cache)
            if not as_timed.ok:
                raise UserError(f"genome {gid} of {run_dir}, as the run built it, no longer builds with {nvcc}: "
                                f"{as_timed.excerpt(600)}")
        totals = as_timed.totals()
        k["resources"] = {key: totals[key] for key in RESOURCE_FIELDS}
        # a figure the run did not record (code_bytes before schema 7) is not a difference
        recorded = {key: v for key, v in k["run_resources"].items() if v is not None}
        if recorded and recorded != {key: k["resources"][key] for key in recorded}:
            k["note"] = (f"built here with {k['resources']}, timed in the run with {k['run_resources']}: "
                         "this nvcc is not the run's, and this cubin is not the one timed")
        shipped = {kernel.name: kernel for kernel in build.kernels}
        changed = sorted(kernel.name for kernel in as_timed.kernels if shipped.get(kernel.name) != kernel)
        if changed:
            k["note"] = ((k.get("note", "") + "; ") if k.get("note") else "") + (
                f"the shipped cubin's {', '.join(changed)} differ from the run's build of the same entries: "
                "not the code that was timed")
    return {"built": True, "nvcc": nvcc, "gencode": list(GENCODE), "flags": list(DEFAULT_FLAGS)}, binaries


def summary_text(table: dict[str, Any]) -> str:
    lines = [f"# Dispatch table of run {table['run_id']}", "",
             f"{table['template']} (hash {table['template_hash']}), timed on {table['environment'].get('gpu', '?')}"
             + (f" ({table['cards']} cards of it: a winner and the default may have been timed on different ones)"
                if table["cards"] > 1 else "") + ". A winner replaces "
             f"the default kernel only where it is at least {table['min_gain']:.0%} faster with the two "
             "interquartile ranges apart; shapes past the largest measured ones go to the default, heads or a "
             "top-k the run never measured (and an empty batch) to the caller's own path. Where the "
             "run also timed kernels inside the model's decode layer (on a GPU by default), that workload is judged "
             "by the time there (the layer's step with the kernel less the step without it), not alone.", ""]
    for g in table["groups"]:
        problem = key_values(g["problem"]) or "(one problem)"
        lines.append(f"## {problem}")
        lines.append("")
        if g["default"] is None:
            lines += [g["note"], ""]
            continue
        if g["default"]["kernel"] is None:
            lines.append("default: the run's PyTorch reference path (no kernel shipped: select() gives None there)")
        else:
            lines.append(f"default kernel: {g['default']['genome_id']} ({g['default']['kernel']})")
        if g["note"]:
            lines += ["", g["note"]]
        lines.append("")
        lines.append("| batch | context | heads | topk | kernel | us (IQR) | default us (IQR) | speedup | timed |")
        lines.append("|---|---|---|---|---|---|---|---|---|")
        for e in g["entries"]:
            who = "default" if e["genome_id"] == g["default"]["genome_id"] else e["genome_id"]
            lines.append(f"| {e['batch'][0]}-{e['batch'][1]} | {e['context'][0]}-{e['context'][1]} | {e['heads']} "
                         f"| {e['topk']} | {who} | {e['median_us']:.1f} ({e['iqr_us']:.1f}) "
                         f"| {e['default_median_us']:.1f} ({e['default_iqr_us']:.1f}) "
                         f"| {e['default_median_us'] / e['median_us']:.2f}x | {e.get('timed', 'alone')} |")
        lines.append("")
        lines += [f"- {e['batch'][0]}-{e['batch'][1]}, {e['context'][0]}-{e['context'][1]}: {e['note']}"
                  for e in g["entries"] if e.get("note")]
        if any(e.get("note") for e in g["entries"]):
            lines.append("")
    lines += ["## Using the kernels", "", build_note(table["language"], table["entry"]), ""]
    cubins = table.get("cubins")
    if cubins:
        lines += [f"Cubins: built here with {cubins['nvcc']}, {' '.join(cubins['gencode'] + cubins['flags'])}."
                  if cubins["built"] else f"Cubins: not built ({cubins['why']}).", ""]
        lines += [f"- {gid}: {k['note']}" for gid, k in table["kernels"].items() if k.get("note")]
    return "\n".join(lines)


# what a CUDA export's launcher/ needs beside launcher.py: the host side the run launched its kernels with
CUDA_LAUNCHER = ("sparse_mla_cuda.py", "cuda_launch.py")


def write_launcher(folder: Path, language: str) -> None:
    """``launcher/`` (``load(kernel)``: the callable the run timed), so that the export runs without
    this repository: engine/shipped/launcher.py, and for CUDA kernels the launcher's two modules."""
    folder.mkdir()
    shutil.copyfile(SHIPPED / "launcher.py", folder / "__init__.py")
    if language == "cuda":
        for name in CUDA_LAUNCHER:
            shutil.copyfile(EVALUATORS / name, folder / name)


def build_note(language: str, entry: str) -> str:
    use = ("`launcher.load(select(...))` (with this folder on `sys.path`) gives the function the run timed, "
           "`f(q, kv_cache, indices, sm_scale, out, lse)`; `launcher.dispatcher(your_path)` selects and loads "
           "per call, your path where select names none; `launcher/__init__.py` says what each argument "
           "holds. ")
    if language == "cuda":
        return (use + "Each `kernels/*.cu` is the source the run compiled and timed, with the code of every "
                "launch (the run's builds left out the split-kernel entries its calls never picked; the table "
                "notes a kernel whose entries differ from those the run built); the launcher runs the cubin "
                f"beside it. Build one as the run did: `nvcc -cubin {' '.join(GENCODE)} {' '.join(DEFAULT_FLAGS)} "
                "-o K.cubin K.cu`. Its `kernel-genome-launch` line holds the launch contract (kernel names, heads "
                "a CTA, threads, shared memory, split count, partial buffers) that `launcher/sparse_mla_cuda.py` "
                "launches it by, on torch's current stream (a CUDA graph captures it). Needs torch and "
                "cuda-python on a Hopper GPU.")
    return (use + f"Each `kernels/*.py` is the Triton module the run timed; `{entry}` is its entry point. Needs "
            "torch and Triton.")


def dispatch_module(table: dict[str, Any]) -> str:
    """A self-contained Python module holding the table and ``select``."""
    groups = [{"problem": g["problem"], "default": g["default"]["kernel"] if g["default"] else None,
               "entries": [{k: e[k] for k in ("heads", "topk", "batch", "context", "kernel")} for e in g["entries"]]}
              for g in table["groups"]]
    gpu = table["environment"].get("gpu", "?")
    return f'''"""Dispatch table of run {table['run_id']} ({table['template']}, timed on {gpu}),
written by `python -m engine export`. select() names the kernel source (relative to this folder)
for a call's shape: a winner where it measurably beat the default kernel, else the default, or
None where the caller's own path runs (select's docstring says where)."""

ENVIRONMENT = {pprint.pformat(table["environment"], width=110)}
GROUPS = {pprint.pformat(groups, sort_dicts=False, width=110)}


def select(batch: int, context: int, heads: int, topk: int, *, device: str | None = None, **problem) -> str | None:
    """The kernel for one call; None where none is exported for it (its default was the reference
    path, or the run measured no default for its problem), for heads or a top-k the run never
    measured (no kernel was verified there, and a kernel's heads a CTA may not divide them), for an
    empty batch, or where ``device`` (the GPU's name, as torch.cuda.get_device_name gives it) is not
    the one the run timed: keep the path the caller has."""
    for name, value in (("batch", batch), ("context", context), ("heads", heads), ("topk", topk)):
        if value < 0:
            raise ValueError(f"select: {{name}} = {{value}} is negative")
    if device is not None and (not isinstance(device, str) or device.startswith(("cuda", "cpu"))):
        # a torch device would never equal the run's GPU name: every call would quietly go elsewhere
        raise ValueError(f"select: device={{device!r}} is the GPU's name as torch.cuda.get_device_name() gives it "
                         f"(the run's: {{ENVIRONMENT.get('gpu')!r}}), not a torch device")
    for group in GROUPS:
        if group["problem"] != problem:
            continue
        if device is not None and device != ENVIRONMENT.get("gpu"):
            return None
        measured = [e for e in group["entries"] if e["heads"] == heads and e["topk"] == topk]
        if not measured or batch == 0 or context == 0:
            return None
        for e in measured:
            if e["batch"][0] <= batch <= e["batch"][1] and e["context"][0] <= context <= e["context"][1]:
                return e["kernel"]
        return group["default"]
    raise LookupError(f"no exported group solves problem {{problem}}; exported: {{[g['problem'] for g in GROUPS]}}")
'''
