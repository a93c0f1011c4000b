"""`show` on recorded runs."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("run", ["h200-cuda2-20261130", "h200-cuda3-20261130"])
def test_show_keeps_genomes_of_different_cache_formats_in_separate_tables(run):
    """A genome reading an FP8 cache solves another problem than one reading bf16: `show` never
    names one the best of the other's workloads (the recorded CUDA runs hold both)."""
    import io
    import re

    from engine.show import show

    buf = io.StringIO()
    show(REPO / "docs" / "runs" / run, buf)
    text = buf.getvalue()
    tables = re.split(r"\nbest genome per workload for ", text)[1:]
    assert [t.split(" ", 1)[0] for t in tables] == ["KV_FORMAT=bf16", "KV_FORMAT=fp8_656"]
    for table in tables:
        fmt = table.split(" ", 1)[0].split("=")[1]
        rows = [line for line in table.splitlines() if line.startswith("  b")]
        assert len(rows) == 12
        assert all(f'"KV_FORMAT":"{fmt}"' in line for line in rows)


def test_show_counts_the_genomes_the_compiler_noted_and_names_its_most_frequent_notes(tmp_path):
    """Rows recorded before compiler notes existed (null) are not counted as built by nvcc; a
    serialization advisory shared by two genomes comes first."""
    import io
    import shutil

    from engine.show import show
    from engine.store.reader import read_records
    from engine.store.writer import ResultsWriter

    run = tmp_path / "run"
    shutil.copytree(REPO / "docs" / "runs" / "h200-cuda3-20261130", run)
    old = read_records(run)
    first = next(r for r in old if r["kind"] == "genome")
    serialized = "ptxas C7520: wgmma.mma_async instructions are serialized due to ... in the function 'k'"
    unused = 'line 27: warning #177-D: variable "kg::MT" was declared but never referenced'
    notes = [[serialized, unused], [serialized], []]
    rows = []
    for i, n in enumerate(notes):
        row = {k: v for k, v in first.items() if k not in ("schema_version", "run_id", "created_at")}
        rows.append({**row, "attempt": len(old) + i, "genome_id": f"noted{i}", "compiler_notes": n})
    ResultsWriter(run, old[0]["run_id"]).append(rows)
    buf = io.StringIO()
    show(run, buf)
    text = buf.getvalue()
    assert "compiler notes on 2 of 3 genomes built by nvcc" in text
    lines = text.split("compiler notes on", 1)[1].splitlines()[1:3]
    assert lines[0].split()[0] == "2" and serialized[:60] in lines[0]
    assert lines[1].split()[0] == "1" and unused in lines[1]


def test_show_says_nothing_of_compiler_notes_where_no_genome_has_any():
    import io

    from engine.show import show

    buf = io.StringIO()
    show(REPO / "docs" / "runs" / "h200-cuda3-20261130", buf)
    assert "compiler notes" not in buf.getvalue()


def test_show_names_each_genome_by_the_genes_it_changes_and_its_cache_format():
    """The recorded run's genomes as `show` prints them: with the run's space defaults they are
    the genomes the run recorded (what `eval --genome` makes of them), and every gene shown but
    the cache format differs from its default."""
    import io
    import json

    from engine.run_folder import read_config, template_of_run
    from engine.show import show
    from engine.store.reader import read_records

    run = REPO / "docs" / "runs" / "h200-cuda17-20261205"
    defaults = template_of_run(run, read_config(run)).load_space().default_params()
    params = {r["genome_id"]: json.loads(r["params_json"]) for r in read_records(run) if r["kind"] == "genome"}
    buf = io.StringIO()
    show(run, buf)
    shown = [line.split(None, 2)[1:] for line in buf.getvalue().split("\ntop 5 by score for ", 1)[1].splitlines()
             if line.startswith("  0.") or line.startswith("  1.")]
    assert len(shown) == 10
    for gid, text in shown:
        genes = json.loads(text)
        assert {**defaults, **genes} == params[gid]
        assert "KV_FORMAT" in genes and all(defaults[k] != v for k, v in genes.items() if k != "KV_FORMAT")
        assert len(genes) < len(defaults)


def test_show_lists_and_marks_the_fastest_inside_the_decode_layer_even_off_the_top_scores():
    """The sixtieth session's H100 run (--e2e): at b1_ctx32k the fastest bf16 attention inside
    the layer belongs to a genome whose score is not among the top five; `show` lists it and marks
    it, and marks exactly one genome a problem and workload, the one with the least time there."""
    import io
    import json

    from engine.show import show
    from engine.store.reader import read_records

    run = REPO / "docs" / "runs" / "h100-e2e-s59-20261205"
    buf = io.StringIO()
    show(run, buf)
    section = buf.getvalue().split("\ninside the decode layer")[1].split("\n\n")[0]
    marked = {(line.split()[0], line.split()[-1]) for line in section.splitlines()[2:] if "*" in line}
    least = {}
    for r in read_records(run):
        if r["kind"] == "genome" and r["status"] == "ok":
            fmt = json.loads(r["params_json"])["KV_FORMAT"]
            for e in r["e2e"]:
                key = (fmt, e["name"])
                if key not in least or e["attention_us"] < least[key][0]:
                    least[key] = (e["attention_us"], r["genome_id"])
    assert marked == {(name, gid) for (_, name), (_, gid) in least.items()}
    assert ("b1_ctx32k", "cec7b108c6f18f6d") in marked
    top = buf.getvalue().split("top 5 by score for KV_FORMAT=bf16")[1].split("\n\n")[0]
    assert "cec7b108c6f18f6d" not in top  # listed for its time in the layer, not its score
    for group in ("KV_FORMAT=bf16", "KV_FORMAT=fp8_656"):  # each problem's reference, named as its group is
        assert f"top 5 by score for {group}" in buf.getvalue() and f"pytorch reference path ({group})" in section


def test_show_says_which_gpus_a_run_built_for_and_nothing_for_a_run_built_whole(tmp_path):
    import io
    import shutil

    from engine.run_folder import set_build_target
    from engine.show import show
    from evaluators.build_target import BuildTarget

    run = tmp_path / "run"
    shutil.copytree(REPO / "docs" / "runs" / "h200-cuda3-20261130", run)
    buf = io.StringIO()
    show(run, buf)
    assert "built for" not in buf.getvalue()
    set_build_target(run, BuildTarget((132,)))
    buf = io.StringIO()
    show(run, buf)
    device_line = next(line for line in buf.getvalue().splitlines() if line.startswith("device: "))
    assert device_line.endswith("(built for 132 SMs: only the code the calls launch there)")


@pytest.mark.parametrize("damage", [lambda text: text[:40], lambda text: '{"objectives": ["score"]}'],
                         ids=["torn", "no-front"])
def test_show_says_a_damaged_pareto_front_in_one_line_and_shows_the_rest(tmp_path, damage):
    import io
    import shutil

    from engine.show import show

    run = tmp_path / "run"
    shutil.copytree(REPO / "docs" / "runs" / "h200-cuda4-20261201", run)
    whole = io.StringIO()
    show(run, whole)
    assert "Pareto front over" in whole.getvalue()
    (run / "pareto.json").write_text(damage((run / "pareto.json").read_text()))
    buf = io.StringIO()
    show(run, buf)
    assert "pareto.json: not a readable Pareto front" in buf.getvalue() and "Pareto front over" not in buf.getvalue()
    before_front = whole.getvalue().split("\nPareto front over")[0]
    assert buf.getvalue().split(f"\n{run / 'pareto.json'}: ")[0] == before_front  # the rest as before
