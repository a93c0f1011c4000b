"""The Markdown tables docs/BENCHMARKS.md takes from scripts/device/time_in_graph.py's reports: one
table per report, a row per variant in the report's order, a column per workload, each cell the
per-call median and IQR in us ("11.06 (0.07)"). Copying the figures by hand let slips into the
record; this prints them as measured.

A variant any of whose checks at a workload was not "ok" (the one-call figure's or any of the
in-graph calls') gets its cell marked "NOT OK: <first failing check>": a wrong kernel's time is
no figure. A knockout, a variant wrong by design (a part of the kernel left out to bound what it
costs), is named with --knockout, or with --marked-knockouts every variant whose name says
"(knockout)" (how the device calls' variants files name them): its cells keep their time, marked
"wrong" where a check failed as it should and "checks ok" where none did (a knockout that knocked
nothing out is no bound either).

Usage: python3 scripts/in_graph_table.py REPORT.json [REPORT.json ...] [--one-call] [--knockout NAME ...]
       [--marked-knockouts]
(--one-call: the one-call-a-graph figures instead of the in-graph ones)
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from engine.errors import UserError  # noqa: E402

KNOCKOUT_MARK = "(knockout)"  # how a variants file names a variant wrong by design


def load_report(path: Path) -> dict:
    """The report at `path`, with its "variants" map checked; a UserError names the file and
    what is wrong."""
    try:
        report = json.loads(path.read_text())
    except OSError as exc:
        raise UserError(f"{path}: cannot read it: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: not JSON: {exc.msg} at line {exc.lineno}") from None
    variants = report.get("variants") if isinstance(report, dict) else None
    if not isinstance(variants, dict) or not variants:
        raise UserError(f"{path}: no 'variants' map of time_in_graph.py's form in it")
    return report


def cell(path: Path, name: str, workload: str, figures: dict, key: str, knockout: bool = False) -> str:
    try:
        t = figures[key]
        text = f"{t['median_us']:.2f} ({t['iqr_us']:.2f})"
        checks = [figures["one_call_check"], *figures["checks"]]
    except (KeyError, TypeError) as exc:
        raise UserError(f"{path}: variant {name!r}, workload {workload!r}: field {exc} missing") from None
    bad = [c for c in checks if c != "ok"]
    if knockout:
        return f"{text}, {'wrong' if bad else 'checks ok'}"
    return f"NOT OK: {bad[0]}" if bad else text


def table(path: Path, report: dict, key: str, knockouts: frozenset[str] = frozenset()) -> str:
    """One report's table: the workloads of its first variant as the columns (`b4_ctx128k` ->
    B=4 when every workload shares one context, else the workload's name)."""
    variants = report["variants"]
    workloads = list(next(iter(variants.values())))
    contexts = {w.split("_", 1)[1] if "_" in w else w for w in workloads}
    heads = [f"B={w.split('_')[0][1:]}" if len(contexts) == 1 and w.startswith("b") else w for w in workloads]
    lines = ["| genome | " + " | ".join(heads) + " |", "|---|" + "---|" * len(workloads)]
    for name, per_workload in variants.items():
        missing = [w for w in workloads if w not in per_workload]
        if missing:
            raise UserError(f"{path}: variant {name!r} has no figures at {missing[0]!r}")
        lines.append(f"| {name} | " + " | ".join(cell(path, name, w, per_workload[w], key, name in knockouts)
                                                 for w in workloads) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reports", nargs="+", type=Path)
    ap.add_argument("--one-call", action="store_true", help="the one-call-a-graph figures")
    ap.add_argument("--knockout", action="append", default=[], metavar="NAME",
                    help="a variant wrong by design: its times shown, marked (repeatable)")
    ap.add_argument("--marked-knockouts", action="store_true",
                    help=f"every variant whose name contains {KNOCKOUT_MARK!r} is a knockout as well")
    args = ap.parse_args(argv)
    key = "one_call" if args.one_call else "in_graph"
    knockouts = frozenset(args.knockout)
    try:
        reports = [(p, load_report(p)) for p in args.reports]
        named = set().union(*(r["variants"] for _, r in reports))
        unknown = sorted(knockouts - named)
        if args.marked_knockouts:
            knockouts |= {name for name in named if KNOCKOUT_MARK in name}
        if unknown:
            raise UserError(f"--knockout {unknown[0]!r}: no variant of that name in "
                            + ", ".join(str(p) for p, _ in reports))
        tables = [table(p, r, key, knockouts) for p, r in reports]
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("\n\n".join(tables))
    return 0


if __name__ == "__main__":
    sys.exit(main())
