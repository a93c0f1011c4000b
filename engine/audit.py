"""Audit a finished run: re-run its top genomes in fresh processes with new seeds and report any
whose correctness or speed does not reproduce within the recorded spread."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, TextIO

from engine.errors import UserError
from engine.run_folder import read_config, template_of_run
from engine.show import problem_groups
from engine.store.reader import read_records
from engine.template import Template


def speed_drift(old: list[dict[str, Any]], new: list[dict[str, Any]], rel: float = 0.05,
                iqr_factor: float = 3.0) -> list[str]:
    """Workloads whose new median lies outside the old one's spread: more than iqr_factor times
    the larger IQR of the two and more than ``rel`` of the old median away."""
    now = {w["name"]: w for w in new}
    drifts = []
    for w in old:
        n = now.get(w["name"])
        if n is None:
            drifts.append(f"{w['name']}: not timed again")
            continue
        allowed = max(iqr_factor * max(w["iqr_us"], n["iqr_us"]), rel * w["median_us"])
        if abs(n["median_us"] - w["median_us"]) > allowed:
            drifts.append(f"{w['name']}: {w['median_us']:.1f} -> {n['median_us']:.1f} us "
                          f"(allowed +-{allowed:.1f})")
    return drifts


def speed_not_comparable(row: dict[str, Any], result: dict[str, Any]) -> str | None:
    """Why the re-run's timings say nothing of the row's (another kind of device timed them), or
    None. A GPU run audited on a CPU machine, or on another GPU model, then checks correctness
    only instead of reading an interpreter's or another card's timings as a failure to reproduce."""
    then = (row.get("env") or {}).get("gpu") or ""
    now = result.get("env") or {}
    if now.get("device_kind") != "cuda":
        return f"re-run under the Triton interpreter on CPU, not on {then or 'the GPU that timed it'}"
    if then and now.get("gpu") and now["gpu"] != then:
        return f"timed on {then}, re-run on {now['gpu']}"
    return None


def audit(run_dir: Path, top: int, make_runner: Callable[[Template, Path, int | None], Any], out: TextIO) -> int:
    """Returns how many of the audited genomes did not reproduce. Each genome is re-run on the
    GPU that timed it (``device_index``), so that a difference between two cards of one host
    does not read as a failure to reproduce."""
    config = read_config(run_dir)
    template = template_of_run(run_dir, config)
    records = read_records(run_dir)
    # the best of each problem (each cache format's: their scores are relative to different
    # defaults, and export ships winners of each)
    tops = [sorted((r for r in members if r["score"] is not None), key=lambda r: r["score"])[:top]
            for members in problem_groups(records, template.problem_genes).values()]
    best = [r for group in tops for r in group]
    if not best:
        raise UserError(f"{run_dir}: no scored genome to audit")
    compare_speed = not any(r["cpu_row"] for r in best)
    failed = 0
    groups = sum(1 for group in tops if group)
    print(f"audit of {run_dir}: top {len(best)} genomes"
          + (f" (up to {top} of each of {groups} problems)" if groups > 1 else "")
          + ", each in a fresh worker with a new seed"
          + ("" if compare_speed else " (CPU rows: correctness only; interpreter timings are not compared)"),
          file=out)
    for i, r in enumerate(best):
        runner = make_runner(template, run_dir / "audit" / f"{i:03d}", r["device_index"])
        try:
            params = json.loads(r["params_json"])
            code = json.loads(r["code_json"]) if r.get("code_json") else None
            # as the run evaluated it: inside the decode layer too where the run was made with --e2e
            source = template.render(params, code, target=getattr(runner, "build_target", None))  # as the run built it
            result = runner.evaluate(template.request(source, params, e2e=config.e2e))
        finally:
            runner.stop()
        problems, elsewhere = [], compare_speed and speed_not_comparable(r, result)
        if result["status"] != "ok":
            problems.append(f"correctness: now {result['status']}: {(result.get('error') or '')[:160]}")
        elif compare_speed and not elsewhere:
            problems += [f"speed: {d}" for d in speed_drift(r["workloads"], result["workloads"])]
        failed += bool(problems)
        verdict = "reproduces" if not problems else "DOES NOT REPRODUCE"
        print(f"  {r['genome_id']}  score {r['score']:.3f}  {verdict}"
              + (" (correctness only)" if elsewhere and not problems else ""), file=out)
        for p in problems:
            print(f"      {p}", file=out)
        if elsewhere:
            print(f"      speed not compared: {elsewhere}", file=out)
    print(f"{failed} of {len(best)} did not reproduce", file=out)
    return failed
