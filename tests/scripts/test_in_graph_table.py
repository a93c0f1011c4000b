"""scripts/in_graph_table.py on real report files, run as a subprocess: the cells are the reports'
medians and IQRs, a variant with a failing check is marked in every cell where it failed (a named
knockout keeps its times, marked), and a malformed report or an unknown knockout is refused with
its file or name given."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "in_graph_table.py"
RECORDED = REPO / "docs" / "diagnostics" / "h200-session38-20261203" / "call2-in_graph.json"


def run(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=60)


def figures(median: float, iqr: float, checks=("ok", "ok"), one_call_check="ok") -> dict:
    return {"one_call": {"median_us": 3 * median, "iqr_us": 2 * iqr}, "in_graph": {"median_us": median, "iqr_us": iqr},
            "checks": list(checks), "one_call_check": one_call_check}


def test_a_recorded_report_gives_a_row_per_variant_with_its_own_figures():
    report = json.loads(RECORDED.read_text())
    proc = run(RECORDED)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    workloads = list(next(iter(report["variants"].values())))
    assert lines[0] == "| genome | " + " | ".join(f"B={w.split('_')[0][1:]}" for w in workloads) + " |"
    assert len(lines) == 2 + len(report["variants"])
    for line, (name, per_workload) in zip(lines[2:], report["variants"].items()):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[0] == name
        for text, w in zip(cells[1:], workloads):
            t = per_workload[w]["in_graph"]
            assert text == f"{t['median_us']:.2f} ({t['iqr_us']:.2f})"


def test_a_failing_check_replaces_the_figure_and_one_call_figures_on_request(tmp_path):
    path = tmp_path / "in_graph.json"
    path.write_text(json.dumps({"floor": {}, "variants": {
        "good": {"b1_ctx128k": figures(11.057, 0.071), "b8_ctx128k": figures(21.4, 0.06)},
        "bad": {"b1_ctx128k": figures(9.0, 0.1, checks=("ok", "out: 3 of 8 elements out of tolerance")),
                "b8_ctx128k": figures(19.0, 0.1, one_call_check="NaN in out")}}}))
    proc = run(path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["| genome | B=1 | B=8 |", "|---|---|---|",
                                        "| good | 11.06 (0.07) | 21.40 (0.06) |",
                                        "| bad | NOT OK: out: 3 of 8 elements out of tolerance | NOT OK: NaN in out |"]
    one = run(path, "--one-call")
    assert one.stdout.splitlines()[2] == "| good | 33.17 (0.14) | 64.20 (0.12) |"


def test_two_reports_give_two_tables_and_mixed_contexts_keep_the_workload_names(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"variants": {"x": {"b128_ctx32k": figures(214.46, 1.2)}}}))
    b.write_text(json.dumps({"variants": {"y": {"b4_ctx32k": figures(1.0, 0.1), "b4_ctx128k": figures(2.0, 0.1)}}}))
    proc = run(a, b)
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.split("\n\n")
    assert first.splitlines()[0] == "| genome | B=128 |" and "| x | 214.46 (1.20) |" in first
    assert second.splitlines()[0] == "| genome | b4_ctx32k | b4_ctx128k |"


def test_malformed_reports_are_refused_with_the_file_named(tmp_path):
    cases = {
        "missing.json": None,
        "not_json.json": "{ nope",
        "no_variants.json": json.dumps({"floor": {}}),
        "no_figure.json": json.dumps({"variants": {"v": {"b1_ctx128k": {"checks": ["ok"], "one_call_check": "ok"}}}}),
        "uneven.json": json.dumps({"variants": {"v": {"b1_ctx128k": figures(1, 0.1)}, "w": {"b2_ctx128k": figures(1, 0.1)}}}),
    }
    for name, text in cases.items():
        path = tmp_path / name
        if text is not None:
            path.write_text(text)
        proc = run(path)
        assert proc.returncode == 2 and proc.stdout == "", (name, proc)
        assert str(path) in proc.stderr, (name, proc.stderr)
    assert "'in_graph'" in run(tmp_path / "no_figure.json").stderr
    assert "'w'" in run(tmp_path / "uneven.json").stderr and "'b1_ctx128k'" in run(tmp_path / "uneven.json").stderr


def test_a_named_knockout_keeps_its_times_marked_and_an_unknown_name_is_refused(tmp_path):
    path = tmp_path / "in_graph.json"
    path.write_text(json.dumps({"variants": {
        "as is": {"b1_ctx128k": figures(11.04, 0.05), "b8_ctx128k": figures(21.45, 0.06)},
        "no rope (wrong)": {"b1_ctx128k": figures(10.5, 0.04, checks=("ok", "out: 7 of 8 elements out of tolerance")),
                            "b8_ctx128k": figures(21.2, 0.07)}}}))
    proc = run(path, "--knockout", "no rope (wrong)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[2:] == ["| as is | 11.04 (0.05) | 21.45 (0.06) |",
                                            "| no rope (wrong) | 10.50 (0.04), wrong | 21.20 (0.07), checks ok |"]
    unknown = run(path, "--knockout", "no rope")
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert "'no rope'" in unknown.stderr and str(path) in unknown.stderr


def test_marked_knockouts_are_the_variants_whose_names_say_so(tmp_path):
    path = tmp_path / "in_graph.json"
    path.write_text(json.dumps({"variants": {
        "as is": {"b8_ctx128k": figures(21.45, 0.06)},
        "rows zero-filled (knockout)": {"b8_ctx128k": figures(20.1, 0.05, checks=("out: 8 of 8 elements out of tolerance",))},
        "broken, not a knockout": {"b8_ctx128k": figures(19.0, 0.05, checks=("NaN in out",))}}}))
    proc = run(path, "--marked-knockouts")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[2:] == ["| as is | 21.45 (0.06) |",
                                            "| rows zero-filled (knockout) | 20.10 (0.05), wrong |",
                                            "| broken, not a knockout | NOT OK: NaN in out |"]
    assert run(path).stdout.splitlines()[3] == "| rows zero-filled (knockout) | NOT OK: out: 8 of 8 elements out of tolerance |"
