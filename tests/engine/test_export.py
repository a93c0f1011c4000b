"""`python -m engine export`: winners only where they measurably beat the default kernel, on
real run folders (the H200 runs kept in docs/runs, and copies of them with rows appended through
the results writer)."""

from __future__ import annotations

import ast
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import UserError
from engine.export import Timing, contenders, covered_ranges, export, fewest_kernels, judged_times
from engine.run_folder import read_config, template_of_run
from engine.store.reader import read_records
from engine.store.writer import ResultsWriter
from tests.marks import NEEDS_NVCC

REPO = Path(__file__).resolve().parents[2]
RUN = REPO / "docs" / "runs" / "h200-cuda15-20261205"  # bf16 default genome bbecde8e3b09354b, 20 FP8 genomes


def _dispatch(folder: Path):
    spec = importlib.util.spec_from_file_location(f"dispatch_{abs(hash(folder))}", folder / "dispatch.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _scaled(workloads, factors: dict[int, tuple[float, float]]):
    """The workloads with each batch's median times a factor, its IQR that fraction of the median."""
    return [{**w, "median_us": w["median_us"] * factors[w["batch"]][0],
             "iqr_us": w["median_us"] * factors[w["batch"]][0] * factors[w["batch"]][1]} for w in workloads]


def _rowless_copy(run: Path) -> Path:
    """A run folder with the recorded run's config and template snapshot and no rows yet."""
    run.mkdir()
    shutil.copy(RUN / "run.json", run)
    shutil.copytree(RUN / "snapshot", run / "snapshot")
    return run


@pytest.fixture()
def two_genome_run(tmp_path):
    """A run folder holding the recorded run's default genome and one other bf16 genome whose
    times are set against the default's: clearly faster at B=1, faster by less than the least
    gain at B=8, faster by less than the spread at B=64, slower at B=128."""
    run = _rowless_copy(tmp_path / "run")
    records = read_records(RUN)
    default = next(r for r in records if r["operator"] == "default")
    other = next(r for r in records if r["kind"] == "genome" and r["status"] == "ok" and r is not default
                 and json.loads(r["params_json"])["KV_FORMAT"] == "bf16")
    tight = {b: (1.0, 0.002) for b in (1, 8, 64, 128)}
    mixed = {1: (0.7, 0.002), 8: (0.99, 0.002), 64: (0.95, 0.2), 128: (1.2, 0.002)}
    rows = []
    for i, (r, factors) in enumerate([(default, tight), (other, mixed)]):
        row = {k: v for k, v in r.items() if k not in ("schema_version", "run_id", "created_at")}
        row.update(attempt=i, workloads=_scaled(default["workloads"], factors))
        rows.append(row)
    ResultsWriter(run, default["run_id"]).append(rows)
    return run, default["genome_id"], other


def test_a_winner_replaces_the_default_only_where_it_measurably_beats_it(two_genome_run, tmp_path):
    run, default_id, other = two_genome_run
    out = tmp_path / "export"
    table = export(run, out, io.StringIO())
    (bf16,) = [g for g in table["groups"] if g["problem"] == {"kv_format": "bf16"}]
    assert bf16["default"]["genome_id"] == default_id
    chosen = {e["workload"]: e["genome_id"] for e in bf16["entries"]}
    assert len(chosen) == 12
    assert all(gid == (other["genome_id"] if name.startswith("b1_") else default_id) for name, gid in chosen.items())
    dispatch = _dispatch(out)
    winner, fallback = f"kernels/{other['genome_id']}.cu", f"kernels/{default_id}.cu"
    assert dispatch.select(1, 100_000, 128, 2048, kv_format="bf16") == winner
    assert dispatch.select(2, 4096, 128, 2048, kv_format="bf16") == fallback   # B=8's range: the default held
    assert dispatch.select(1, 200_000, 128, 2048, kv_format="bf16") == fallback  # past the longest context
    assert dispatch.select(129, 4096, 128, 2048, kv_format="bf16") == fallback  # past the largest batch
    # heads or a top-k the run never measured: no kernel was verified there (these take 64 heads a
    # CTA: 16 heads would be refused at launch), and an empty batch: the caller's own path
    assert dispatch.select(1, 4096, 64, 2048, kv_format="bf16") is None
    assert dispatch.select(1, 4096, 16, 2048, kv_format="bf16") is None
    assert dispatch.select(1, 4096, 128, 1024, kv_format="bf16") is None
    assert dispatch.select(0, 4096, 128, 2048, kv_format="bf16") is None
    with pytest.raises(ValueError, match="batch = -1 is negative"):
        dispatch.select(-1, 4096, 128, 2048, kv_format="bf16")
    # each exported source is the template's render of the genome the run timed
    template = template_of_run(run, read_config(run))
    source = (out / winner).read_text()
    assert source == template.render(json.loads(other["params_json"]))
    assert "kernel-genome-launch" in source
    assert sorted(p.name for p in (out / "kernels").glob("*.cu")) == sorted([Path(winner).name, Path(fallback).name])


def test_a_genome_timed_twice_must_win_both_times(two_genome_run, tmp_path):
    """A second row of the winner, slower than the default at B=1, takes B=1 back to the default."""
    run, default_id, other = two_genome_run
    records = read_records(run)
    again = next(r for r in records if r["genome_id"] == other["genome_id"])
    row = {k: v for k, v in again.items() if k not in ("schema_version", "run_id", "created_at")}
    default_times = next(r for r in records if r["genome_id"] == default_id)["workloads"]
    slower = {1: (1.05, 0.002), 8: (1, 0.002), 64: (1, 0.002), 128: (1, 0.002)}
    row.update(attempt=2, workloads=_scaled(default_times, slower))
    ResultsWriter(run, again["run_id"]).append([row])
    table = export(run, tmp_path / "export", io.StringIO())
    assert {e["genome_id"] for g in table["groups"] for e in g["entries"]} == {default_id}


def test_each_problem_gets_its_own_default_and_a_named_one_is_used(tmp_path):
    """The recorded run evaluated no FP8 default: that group dispatches nothing until one is named;
    with one named, every FP8 shape up to the largest measured gets a kernel, never a bf16 one."""
    records = read_records(RUN)
    fp8 = [r for r in records if r["kind"] == "genome" and r["status"] == "ok"
           and json.loads(r["params_json"])["KV_FORMAT"] == "fp8_656"]
    plain = export(RUN, tmp_path / "plain", io.StringIO())
    (group,) = [g for g in plain["groups"] if g["problem"] == {"kv_format": "fp8_656"}]
    assert group["default"] is None and group["entries"] == [] and "--default" in group["note"]
    assert _dispatch(tmp_path / "plain").select(8, 4096, 128, 2048, kv_format="fp8_656") is None

    named = export(RUN, tmp_path / "named", io.StringIO(), [fp8[0]["genome_id"]])
    (group,) = [g for g in named["groups"] if g["problem"] == {"kv_format": "fp8_656"}]
    assert group["default"]["genome_id"] == fp8[0]["genome_id"]
    fp8_ids = {r["genome_id"] for r in fp8}
    dispatch = _dispatch(tmp_path / "named")
    for batch in range(1, 129):
        kernel = dispatch.select(batch, 131072, 128, 2048, kv_format="fp8_656")
        assert Path(kernel).stem in fp8_ids
    assert dispatch.select(129, 131072, 128, 2048, kv_format="fp8_656") == group["default"]["kernel"]
    with pytest.raises(LookupError, match="nvfp4"):
        dispatch.select(8, 4096, 128, 2048, kv_format="nvfp4")


def test_a_run_that_evaluated_each_formats_default_exports_both_without_naming_one(tmp_path):
    """The loop now evaluates a default genome for each cache format (operator "default"): export
    takes the FP8 one as that group's default with no --default. The recorded run, copied, with
    one of its FP8 genomes written again as the FP8 default row such a run holds."""
    run = _rowless_copy(tmp_path / "run")
    records = read_records(RUN)
    fp8 = [r for r in records if r["kind"] == "genome" and r["status"] == "ok"
           and json.loads(r["params_json"])["KV_FORMAT"] == "fp8_656"]
    keep = [r for r in records if r["kind"] == "reference" or r["operator"] == "default"] + fp8
    rows = [{k: v for k, v in r.items() if k not in ("schema_version", "run_id", "created_at")} for r in keep]
    for i, row in enumerate(rows):
        row.update(attempt=i, operator="default" if row["genome_id"] == fp8[0]["genome_id"] else row["operator"])
    ResultsWriter(run, records[0]["run_id"]).append(rows)
    table = export(run, tmp_path / "export", io.StringIO())
    (group,) = [g for g in table["groups"] if g["problem"] == {"kv_format": "fp8_656"}]
    assert group["default"]["genome_id"] == fp8[0]["genome_id"]
    assert len(group["entries"]) == 12
    fp8_ids = {r["genome_id"] for r in fp8}
    assert all(Path(_dispatch(tmp_path / "export").select(b, 4096, 128, 2048, kv_format="fp8_656")).stem in fp8_ids
               for b in (1, 8, 64, 128))


def test_few_kernels_cover_the_table_where_the_fastest_wins_only_by_noise():
    default = Timing(100.0, 1.0)
    # w1: A is fastest by less than the spread, B ties it; w2: only B beats the default
    w1 = contenders({"A": Timing(50.0, 2.0), "B": Timing(51.0, 2.0), "C": Timing(99.5, 0.5)}, default, 0.02)
    w2 = contenders({"A": Timing(99.0, 1.0), "B": Timing(60.0, 1.0)}, default, 0.02)
    assert set(w1) == {"A", "B"} and set(w2) == {"B"}
    assert fewest_kernels({"w1": w1, "w2": w2}) == {"w1": "B", "w2": "B"}
    # measurably faster (the interquartile ranges apart) keeps its workload
    w1 = contenders({"A": Timing(40.0, 2.0), "B": Timing(51.0, 2.0)}, default, 0.02)
    assert fewest_kernels({"w1": w1, "w2": w2}) == {"w1": "A", "w2": "B"}
    assert fewest_kernels({"w1": {}, "w2": w2}) == {"w2": "B"}


def test_the_fewest_kernels_are_found_where_taking_the_widest_first_needs_more():
    # G contends at four workloads, P and Q at three each: G first leaves w5 and w6 to P and Q
    # (three kernels), while P and Q alone cover all six
    t = Timing(10.0, 0.1)
    table = {"w1": {"G": t, "P": t}, "w2": {"G": t, "P": t}, "w3": {"G": t, "Q": t}, "w4": {"G": t, "Q": t},
             "w5": {"P": t}, "w6": {"Q": t}}
    chosen = fewest_kernels(table)
    assert set(chosen.values()) == {"P", "Q"}
    assert chosen == {"w1": "P", "w2": "P", "w3": "Q", "w4": "Q", "w5": "P", "w6": "Q"}


def test_of_equally_few_kernels_the_faster_set_is_taken():
    # {A} and {B} each cover both workloads; B's summed time is smaller though A wins w1
    table = {"w1": {"A": Timing(10.0, 1.0), "B": Timing(10.5, 1.0)},
             "w2": {"A": Timing(20.0, 1.0), "B": Timing(18.0, 1.0)}}
    assert fewest_kernels(table) == {"w1": "B", "w2": "B"}


def test_the_archived_run_where_the_greedy_cover_took_three_kernels_now_takes_two():
    from engine.export import build_table

    table, _ = build_table(REPO / "docs" / "runs" / "h200-cuda16-20261205")
    (bf16,) = [g for g in table["groups"] if g["problem"] == {"kv_format": "bf16"}]
    assert len(bf16["entries"]) == 12 and len({e["genome_id"] for e in bf16["entries"]}) == 2


def test_covered_ranges_run_from_past_the_previous_measured_value():
    assert covered_ranges([64, 1, 8, 8, 128]) == {1: [1, 1], 8: [2, 8], 64: [9, 64], 128: [65, 128]}


def _run_with(tmp_path, change) -> Path:
    run = tmp_path / "run"
    shutil.copytree(RUN, run)
    records = read_records(RUN)
    row = next(r for r in records if r["kind"] == "genome" and r["status"] == "ok" and r["operator"] != "default")
    row = {k: v for k, v in row.items() if k not in ("schema_version", "run_id", "created_at")}
    change(row)
    ResultsWriter(run, records[0]["run_id"]).append([{**row, "attempt": len(records)}])
    return run


@pytest.mark.parametrize("case, message", [
    ("cpu", "interpreter timings from a CPU run"),
    ("two devices", "2 kinds of device (NVIDIA H100, NVIDIA H200)"),
    ("unknown default", "--default 0123456789abcdef: no ok genome of that id"),
    ("out not empty", "exists and is not an empty folder"),
    ("negative gain", "--min-gain: '-0.1'"),
])
def test_export_refuses_what_it_cannot_vouch_for_and_writes_nothing(tmp_path, case, message):
    run, out, args = RUN, tmp_path / "export", []
    if case == "cpu":
        run = _run_with(tmp_path, lambda row: row.update(cpu_row=True))
    elif case == "two devices":
        run = _run_with(tmp_path, lambda row: row.update(env={**row["env"], "gpu": "NVIDIA H100"}))
    elif case == "unknown default":
        args = ["--default", "0123456789abcdef"]
    elif case == "out not empty":
        out.mkdir()
        (out / "keep.txt").write_text("mine")
    elif case == "negative gain":
        args = ["--min-gain", "-0.1"]
    before = sorted(p.name for p in out.iterdir()) if out.exists() else None
    done = subprocess.run([sys.executable, "-m", "engine", "export", str(run), "--out", str(out), *args],
                          capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert (sorted(p.name for p in out.iterdir()) if out.exists() else None) == before


def test_the_command_writes_the_table_and_prints_it(tmp_path):
    out = tmp_path / "export"
    done = subprocess.run([sys.executable, "-m", "engine", "export", str(RUN), "--out", str(out)],
                          capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr
    table = json.loads((out / "dispatch.json").read_text())
    assert (out / "README.md").read_text() in done.stdout
    (bf16,) = [g for g in table["groups"] if g["problem"] == {"kv_format": "bf16"}]
    for e in bf16["entries"]:  # every winner as the table states it
        if e["genome_id"] != bf16["default"]["genome_id"]:
            assert e["default_median_us"] >= 1.02 * e["median_us"]
            assert e["median_us"] + e["iqr_us"] / 2 < e["default_median_us"] - e["default_iqr_us"] / 2
    for gid, k in table["kernels"].items():
        assert (out / k["source"]).is_file()


def test_export_of_an_unreadable_run_names_the_folder(tmp_path):
    with pytest.raises(UserError, match="not a run folder"):
        export(tmp_path, tmp_path / "export", io.StringIO())


def test_ranges_are_drawn_among_the_workloads_of_the_same_heads_and_topk():
    from engine.export import _entries

    shapes = {f"h{h}_b{b}": {"name": f"h{h}_b{b}", "heads": h, "topk": 2048, "batch": b, "context": 4096}
              for h, batches in ((64, (1, 4)), (128, (1, 8))) for b in batches}
    default = {name: Timing(100.0, 1.0) for name in shapes}
    fast = {"F": {name: Timing(50.0, 1.0) for name in shapes if name != "h128_b8"}}
    entries = {e["workload"]: e for e in _entries(shapes, default, fast, 0.02)}
    assert [entries[n]["batch"] for n in ("h64_b1", "h64_b4", "h128_b1", "h128_b8")] == [[1, 1], [2, 4], [1, 1], [2, 8]]
    assert [entries[n]["winner"] for n in ("h64_b4", "h128_b8")] == ["F", None]


def test_the_reference_path_as_the_default_ships_no_kernel_and_falls_back_to_none(tmp_path):
    """--default reference: the winners are weighed against the run's PyTorch path (the model's
    path without a custom kernel), which solves the problem's default arguments (bf16) only."""
    table = export(RUN, tmp_path / "export", io.StringIO(), ["reference"])
    (bf16,) = [g for g in table["groups"] if g["problem"] == {"kv_format": "bf16"}]
    (fp8,) = [g for g in table["groups"] if g["problem"] == {"kv_format": "fp8_656"}]
    assert bf16["default"] == {"genome_id": "pytorch-reference", "kernel": None}
    assert fp8["default"] is None
    reference = next(r for r in read_records(RUN) if r["kind"] == "reference")
    times = {w["name"]: w["median_us"] for w in reference["workloads"]}
    assert all(e["default_median_us"] == times[e["workload"]] for e in bf16["entries"])
    assert all(e["kernel"] for e in bf16["entries"])  # every genome shipped beats the PyTorch path
    assert "pytorch-reference" not in table["kernels"]
    dispatch = _dispatch(tmp_path / "export")
    assert dispatch.select(129, 4096, 128, 2048, kv_format="bf16") is None
    assert dispatch.select(8, 4096, 128, 2048, kv_format="bf16", device="NVIDIA H200") is not None
    # winners measured on an H200 are not handed to another GPU
    assert dispatch.select(8, 4096, 128, 2048, kv_format="bf16", device="NVIDIA H100 80GB HBM3") is None
    with pytest.raises(ValueError, match="GPU's name"):  # a torch device is no GPU name: not quietly None
        dispatch.select(8, 4096, 128, 2048, kv_format="bf16", device="cuda:0")
    with pytest.raises(LookupError, match="BF16"):  # a misspelt format is named on any GPU
        dispatch.select(8, 4096, 128, 2048, kv_format="BF16", device="NVIDIA H100 80GB HBM3")


def test_default_reference_on_a_problem_without_a_pytorch_row_says_which_default_stands():
    # h200-cuda17 timed the PyTorch path on bf16 only and a default genome on each format: the
    # FP8 group keeps its default genome, and the table says so rather than keeping it unsaid
    from engine.export import build_table, summary_text

    table, _ = build_table(REPO / "docs" / "runs" / "h200-cuda17-20261205", ["reference"])
    groups = {g["problem"]["kv_format"]: g for g in table["groups"]}
    assert groups["bf16"]["default"]["kernel"] is None and groups["bf16"]["note"] == ""
    fp8 = groups["fp8_656"]
    assert fp8["default"]["kernel"] and "no PyTorch reference row of this problem" in fp8["note"]
    assert fp8["default"]["genome_id"] in fp8["note"] and fp8["note"] in summary_text(table)


def test_the_reference_as_default_is_each_problems_own_pytorch_path_where_no_genome_is_named(tmp_path):
    """Runs now time the PyTorch path on each cache format (rows recording the problem genes'
    values): `--default reference` weighs each format's winners against its own path, and a
    genome named for one format keeps that format."""
    run = _rowless_copy(tmp_path / "run")
    records = read_records(RUN)
    rows = [{k: v for k, v in r.items() if k not in ("schema_version", "run_id", "created_at")} for r in records]
    old = next(r for r in rows if r["kind"] == "reference")
    fp8_path = dict(old)
    fp8_path.update(attempt=max(r["attempt"] for r in records) + 1, genome_id="pytorch-reference-fp8_656",
                    params_json='{"KV_FORMAT":"fp8_656"}', workloads=_scaled(old["workloads"], {
                        b: (1.3, 0.002) for b in {w["batch"] for w in old["workloads"]}}))
    ResultsWriter(run, records[0]["run_id"]).append(rows + [fp8_path])
    table = export(run, tmp_path / "export", io.StringIO(), ["reference"])
    groups = {g["problem"]["kv_format"]: g for g in table["groups"]}
    assert groups["bf16"]["default"] == {"genome_id": "pytorch-reference", "kernel": None}
    assert groups["fp8_656"]["default"] == {"genome_id": "pytorch-reference-fp8_656", "kernel": None}
    times = {w["name"]: w["median_us"] for w in fp8_path["workloads"]}
    assert groups["fp8_656"]["entries"] and all(e["default_median_us"] == times[e["workload"]]
                                                for e in groups["fp8_656"]["entries"])
    bf16 = next(r for r in records if r["kind"] == "genome" and r["status"] == "ok"
                and json.loads(r["params_json"])["KV_FORMAT"] == "bf16")
    table = export(run, tmp_path / "mixed", io.StringIO(), ["reference", bf16["genome_id"]])
    groups = {g["problem"]["kv_format"]: g for g in table["groups"]}
    assert groups["bf16"]["default"]["genome_id"] == bf16["genome_id"]
    assert groups["fp8_656"]["default"]["genome_id"] == "pytorch-reference-fp8_656"


def test_the_reference_as_default_needs_a_reference_row(two_genome_run, tmp_path):
    run, _, _ = two_genome_run
    with pytest.raises(UserError, match="--default reference: .* holds no reference row evaluated ok"):
        export(run, tmp_path / "export", io.StringIO(), ["reference"])
    assert not (tmp_path / "export").exists()


def test_a_run_over_two_cards_says_so_beside_its_table(tmp_path):
    """The drill run timed its genomes on two H200s of one host: a winner and the default may
    have been timed on different cards, and the table says it."""
    run = REPO / "docs" / "runs" / "h200-drill-20261130"
    assert {r["device_index"] for r in read_records(run) if r["status"] == "ok"} >= {0, 1}
    text = io.StringIO()
    table = export(run, tmp_path / "export", text)
    assert table["cards"] == 2 and "(2 cards of it" in text.getvalue()
    assert export(RUN, tmp_path / "one", io.StringIO())["cards"] == 1


def test_a_winner_whose_code_regions_an_llm_rewrote_ships_with_its_own_code(tmp_path):
    """The recorded run's template with its includes marked as a code region; a genome that
    rewrote that region wins at B=1, and its exported kernel carries the rewritten text."""
    from engine.genome import Genome, canonical_code
    from engine.run_folder import file_hash
    from engine.template import template_from_text

    run = tmp_path / "run"
    (run / "snapshot").mkdir(parents=True)
    shutil.copy(RUN / "snapshot" / "space.toml", run / "snapshot")
    includes = "#include <cuda_bf16.h>\n"
    text = (RUN / "snapshot" / "template.j2").read_text().replace(includes, "{% block includes %}" + includes + "{% endblock %}", 1)
    (run / "snapshot" / "template.j2").write_text(text)
    template = template_from_text(Path("gone.cu.j2"), text, run / "snapshot" / "space.toml")
    config = json.loads((RUN / "run.json").read_text())
    config.update(template="gone.cu.j2", template_hash=template.content_hash,
                  space_hash=file_hash(run / "snapshot" / "space.toml"))
    (run / "run.json").write_text(json.dumps(config))
    records = read_records(RUN)
    default = next(r for r in records if r["operator"] == "default")
    code = {"includes": includes + "// the LLM's region\n"}
    coded = Genome(default["params_json"], template.content_hash, canonical_code(code))
    rows = []
    for i, (gid, code_json, op, factors) in enumerate([
            (default["genome_id"], None, "default", {b: (1.0, 0.002) for b in (1, 8, 64, 128)}),
            (coded.genome_id, coded.code_json, "llm:1", {1: (0.7, 0.002), 8: (1.1, 0.002), 64: (1.1, 0.002),
                                                         128: (1.1, 0.002)})]):
        row = {k: v for k, v in default.items() if k not in ("schema_version", "run_id", "created_at")}
        row.update(attempt=i, genome_id=gid, code_json=code_json, operator=op,
                   workloads=_scaled(default["workloads"], factors))
        rows.append(row)
    ResultsWriter(run, default["run_id"]).append(rows)
    table = export(run, tmp_path / "export", io.StringIO())
    assert table["kernels"][coded.genome_id]["code"] == code
    source = (tmp_path / "export" / "kernels" / f"{coded.genome_id}.cu").read_text()
    assert source == template.render(json.loads(default["params_json"]), code)
    assert "// the LLM's region" in source
    assert "// the LLM's region" not in (tmp_path / "export" / "kernels" / f"{default['genome_id']}.cu").read_text()


@NEEDS_NVCC
def test_cuda_kernels_ship_as_cubins_built_as_the_run_built_them(two_genome_run, tmp_path):
    run, default_id, other = two_genome_run
    (run / "cubins").mkdir()  # the run's own build cache, as the worker leaves it where the run ran
    table = export(run, tmp_path / "export", io.StringIO())
    assert len(list((run / "cubins").iterdir())) == len(table["kernels"])  # built there, not elsewhere
    assert table["cubins"]["built"] and table["cubins"]["gencode"] == ["-gencode", "arch=compute_90a,code=sm_90a"]
    for gid, k in table["kernels"].items():
        assert (tmp_path / "export" / k["cubin"]).read_bytes()[:4] == b"\x7fELF"
        # the same nvcc gives the figures the run recorded; another one is named, not hidden
        recorded = {key: v for key, v in k["run_resources"].items() if v is not None}
        assert recorded.get("registers") and k["run_resources"]["code_bytes"] is None  # an older run's rows
        same = recorded == {key: k["resources"][key] for key in recorded}
        assert same or "not the one timed" in k["note"]
        assert k["resources"]["code_bytes"] > 0 and (not same or "note" not in k)  # what it lacks is no difference
    on_disk = json.loads((tmp_path / "export" / "dispatch.json").read_text())
    assert on_disk["kernels"][other["genome_id"]]["cubin"] == f"kernels/{other['genome_id']}.cubin"
    assert "Cubins: built here with" in (tmp_path / "export" / "README.md").read_text()


def test_a_cuda_export_ships_the_launcher_its_run_timed_with(two_genome_run, tmp_path, monkeypatch):
    """launcher/ holds the host side the worker launched the kernels with, byte for byte; loading
    a kernel says what this machine lacks: its cubin (no nvcc here), then a GPU."""
    import torch

    run, default_id, _ = two_genome_run
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no nvcc: the sources ship without cubins
    folder = tmp_path / "export"
    export(run, folder, io.StringIO())
    for name in ("sparse_mla_cuda.py", "cuda_launch.py"):
        assert (folder / "launcher" / name).read_bytes() == (REPO / "evaluators" / name).read_bytes()
    # no import, lazy ones included, reaches back into this repository: a user's process has none
    # of it (the fifty-ninth session's tensor-map import did, and failed on the GPU)
    ours = {p.parent.name for p in REPO.glob("*/__init__.py")}
    for path in (folder / "launcher").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            assert not [n for n in names if n.split(".")[0] in ours], (path.name, node.lineno, names)

    def load() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", f"from launcher import load; load('kernels/{default_id}.cu')"],
                              cwd=folder, capture_output=True, text=True, timeout=120,
                              env={**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONPATH": str(folder)})
    done = load()
    assert done.returncode == 1 and f"{default_id}.cubin: not built; build it from {default_id}.cu" in done.stderr
    if torch.cuda.is_available():
        return  # the GPU tier loads and runs a real one (tests/gpu/test_gpu_export.py)
    (folder / "kernels" / f"{default_id}.cubin").write_bytes(b"\x7fELF")
    done = load()
    assert done.returncode == 1 and "a CUDA kernel runs only on a CUDA GPU" in done.stderr


def test_without_nvcc_the_sources_ship_and_the_table_says_why_no_cubin(two_genome_run, tmp_path, monkeypatch):
    run, _, _ = two_genome_run
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    table = export(run, tmp_path / "export", io.StringIO())
    assert table["cubins"] == {"built": False,
                               "why": "nvcc is not on PATH here: build each source as the README says"}
    assert not list((tmp_path / "export" / "kernels").glob("*.cubin"))
    assert all("cubin" not in k for k in table["kernels"].values())


E2E_RUN = REPO / "docs" / "runs" / "h100-e2e-s59-20261205"  # an H100 run with --e2e: b1 and b64 in the layer too


def test_a_workload_timed_inside_the_decode_layer_is_judged_there(tmp_path):
    """At b1_ctx32k the recorded run's fastest genome alone (a siblings' merge) took longer inside
    the layer than a separate merge's genome: the table gives that shape to the one faster in the
    layer, with its time there, and judges b1's other contexts, timed alone only, alone."""
    records = [r for r in read_records(E2E_RUN) if r["kind"] == "genome" and r["status"] == "ok"
               and json.loads(r["params_json"])["KV_FORMAT"] == "bf16"]
    alone = {r["genome_id"]: next(w["median_us"] for w in r["workloads"] if w["name"] == "b1_ctx32k") for r in records}
    inside = {r["genome_id"]: next(e["attention_us"] for e in r["e2e"] if e["name"] == "b1_ctx32k") for r in records}
    fastest_alone = min(alone, key=alone.get)
    assert inside[fastest_alone] > min(inside.values()) + 3  # the data this test stands on

    table = export(E2E_RUN, tmp_path / "export", io.StringIO())
    (bf16,) = [g for g in table["groups"] if g["problem"] == {"kv_format": "bf16"}]
    entries = {e["workload"]: e for e in bf16["entries"]}
    b1 = entries["b1_ctx32k"]
    assert b1["timed"] == "in the decode layer" and b1["genome_id"] != fastest_alone
    assert b1["median_us"] == inside[b1["genome_id"]] and b1["median_us"] < inside[fastest_alone] - 3
    default = next(r for r in read_records(E2E_RUN) if r["genome_id"] == bf16["default"]["genome_id"])
    assert b1["default_median_us"] == next(e["attention_us"] for e in default["e2e"] if e["name"] == "b1_ctx32k")
    assert entries["b64_ctx32k"]["timed"] == "in the decode layer"
    assert entries["b1_ctx4k"]["timed"] == "alone" and entries["b8_ctx32k"]["timed"] == "alone"
    readme = (tmp_path / "export" / "README.md").read_text()
    assert "| in the decode layer |" in readme
    # b1's other contexts, judged alone, went to a kernel the layer found slower: each says so
    for name in ("b1_ctx4k", "b1_ctx128k"):
        e = entries[name]
        assert e["genome_id"] != b1["genome_id"] and inside[e["genome_id"]] > b1["median_us"]
        assert e["note"] == (f"inside the decode layer at b1_ctx32k this kernel took {inside[e['genome_id']]:.1f} us "
                             f"against {b1['median_us']:.1f} for {b1['genome_id']}, the kernel chosen there")
        assert e["note"] in readme
    assert "note" not in b1 and "note" not in entries["b8_ctx4k"]


def test_at_a_workload_timed_in_the_layer_a_genome_without_a_time_there_has_none():
    alone = {"b1_ctx4k": Timing(10.0, 0.1), "b1_ctx32k": Timing(9.0, 0.1)}
    assert judged_times(alone, {}, {"b1_ctx32k"}) == {"b1_ctx4k": Timing(10.0, 0.1)}
    assert judged_times(alone, {"b1_ctx32k": Timing(15.0, 1.0)}, {"b1_ctx32k"}) == {
        "b1_ctx4k": Timing(10.0, 0.1), "b1_ctx32k": Timing(15.0, 1.0)}
    assert judged_times(alone, {"b1_ctx32k": Timing(15.0, 1.0)}, set()) == alone  # the default was not timed there


@NEEDS_NVCC
def test_a_build_cache_that_cannot_be_made_is_one_error_and_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("build").write_text("a file where the build cache's folder would go\n")
    with pytest.raises(UserError, match=r"build/cubin: cannot use the build cache \(Not a directory\)"):
        export(RUN, tmp_path / "export", io.StringIO())
    assert not (tmp_path / "export").exists()
