"""The CUDA template's code regions (templates/sparse_mla.cu.j2): the parts an LLM may rewrite are
marked without changing any genome's kernel, a rewritten region builds through `engine compile
--code`, and a rewrite that breaks the build is a compile status naming the compiler's complaint."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.template import load_template, render_text
from tests.marks import NEEDS_NVCC

REPO = Path(__file__).resolve().parents[2]
TEMPLATE_REL = "templates/sparse_mla.cu.j2"
TEMPLATE = load_template(REPO / TEMPLATE_REL)
SPACE = TEMPLATE.load_space()

# the small-batch FP8 genome of docs/diagnostics/h200-session44-20261204/variants3.json
SCORER_FP8 = dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="scorer", STAGES=2, Q_LOAD="tma", TOPK_TILE=32,
                  GATHER_LANES=8, PARTIALS="i8", PDL=True, COMBINE="siblings", VALUE_ISSUE="at_p",
                  FIRST_GATHER="pair_first", KV_FORMAT="fp8_656", SPLIT_STEP="tile", PAIRING="adaptive")


def unmarked_text() -> str:
    """The template's text without its region tags: what it was before the regions were marked."""
    lines = TEMPLATE.text.split("\n")
    kept = [ln for ln in lines if not ln.lstrip().startswith(("{%- block ", "{%- endblock"))]
    assert len(lines) - len(kept) == 2 * len(TEMPLATE.regions)
    return "\n".join(kept)


def words(source: str) -> list[str]:
    return [line for line in source.splitlines() if line.strip()]


def test_the_regions_are_the_conversion_the_merge_arithmetic_and_the_scorers_softmax():
    regions = TEMPLATE.regions
    assert sorted(regions) == ["e4m3_to_bf16", "merge_arithmetic", "softmax_tile"]
    assert "e4m3x4_to_bf16x4_scaled(" in regions["e4m3_to_bf16"]
    assert "split_weights(" in regions["merge_arithmetic"] and "add_batch(" in regions["merge_arithmetic"]
    assert "void softmax_tile(" in regions["softmax_tile"]
    # each region says why as well as what: its comments travel with it to the LLM
    assert all("// " in text for text in regions.values())


@pytest.mark.parametrize("genes", [{}, dict(KV_FORMAT="fp8_656"), SCORER_FP8, dict(SCORER_FP8, KV_FORMAT="bf16")],
                         ids=["default", "fp8", "scorer_fp8", "scorer_bf16"])
def test_marking_the_regions_leaves_every_kernel_as_it_was_and_their_own_text_renders_the_same_code(genes):
    params = {**SPACE.default_params(), **genes}
    assert not SPACE.violations(params)
    plain = TEMPLATE.render(params)
    assert plain == render_text(unmarked_text(), params, "unmarked")
    # a genome that gives every region its own text renders the same lines (a region's own text
    # keeps the newline its tags strip: blank lines are all that differ)
    assert words(TEMPLATE.render(params, dict(TEMPLATE.regions))) == words(plain)


def test_a_region_only_renders_where_the_genome_takes_that_path():
    params = SPACE.default_params()  # the mma.sync path: no scorer, so no softmax_tile
    marker = "// softmax rewritten for {{ HEADS_PER_CTA }} heads\n"
    source = TEMPLATE.render(params, {"softmax_tile": marker + TEMPLATE.regions["softmax_tile"]})
    assert "softmax rewritten" not in source
    scorer = {**params, **SCORER_FP8}
    source = TEMPLATE.render(scorer, {"softmax_tile": marker + TEMPLATE.regions["softmax_tile"]})
    assert f"// softmax rewritten for {scorer['HEADS_PER_CTA']} heads" in source


def test_a_rewrite_that_opens_without_a_line_break_still_opens_on_its_own_line():
    """The regions' tags strip the whitespace before them (`{%- block`); a rewrite whose text
    starts straight at code (an LLM's answer mostly does) had its first line joined to the line
    before the tag, a comment, and dropped from the code without a word."""
    scorer = {**SPACE.default_params(), **SCORER_FP8}
    code = {name: f"#error FIRST_LINE_OF_{name}\n" + own.lstrip("\n") for name, own in TEMPLATE.regions.items()}
    lines = TEMPLATE.render(scorer, code).splitlines()
    for name in TEMPLATE.regions:
        assert f"#error FIRST_LINE_OF_{name}" in lines, name  # a line of its own, so the compiler sees it


def run_compile(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", "compile", TEMPLATE_REL, *map(str, args)],
                          cwd=REPO, capture_output=True, text=True, timeout=600)


@NEEDS_NVCC
def test_engine_compile_builds_a_rewritten_region_and_types_a_broken_one(tmp_path):
    own = TEMPLATE.regions["e4m3_to_bf16"]
    # a rewrite that reads a gene, as an LLM's may: a source of its own, built on its own
    rewritten = own.replace("  lo = bf16x2_times_2p120_scaled(lo, scale2);\n  hi = bf16x2_times_2p120_scaled(hi, scale2);",
                            "  lo = bf16x2_times_2p120_scaled(lo, scale2);  // {{ KV_FORMAT }}\n"
                            "  hi = bf16x2_times_2p120_scaled(hi, scale2);")
    assert rewritten != own
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"e4m3_to_bf16": rewritten}))
    genome = json.dumps({"KV_FORMAT": "fp8_656"})
    plain = run_compile("--genome", genome, "--cache", tmp_path / "cache")
    done = run_compile("--genome", genome, "--code", good, "--cache", tmp_path / "cache")
    assert plain.returncode == 0 and done.returncode == 0, done.stdout + done.stderr
    before, after = json.loads(plain.stdout), json.loads(done.stdout)
    assert after["status"] == "ok" and after["code_regions"] == ["e4m3_to_bf16"] and before["code_regions"] == []
    assert after["genome_id"] != before["genome_id"]
    assert after["build_key"] != before["build_key"] and not after["cache_hit"]  # its own source was built
    assert after["registers"] == before["registers"] and after["spill_bytes"] == 0
    # the rewrite drops a function the kernel calls: the compiler's message, as a compile status
    broken = tmp_path / "broken.json"
    cut = own[:own.index("// Four e4m3 values times their power-of-two scale")]
    broken.write_text(json.dumps({"e4m3_to_bf16": cut}))
    failed = run_compile("--genome", genome, "--code", broken, "--cache", tmp_path / "cache")
    assert failed.returncode == 1, failed.stderr
    figures = json.loads(failed.stdout)
    assert figures["status"] == "compile_error" and "e4m3x4_to_bf16x4_scaled" in figures["error"]


def test_code_for_a_region_the_template_lacks_or_not_json_is_one_line_naming_the_file(tmp_path):
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps({"epilogue": "x"}))
    done = run_compile("--code", unknown, "--cache", tmp_path / "cache")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"--code {unknown}" in done.stderr and "unknown code regions ['epilogue']" in done.stderr
    assert "e4m3_to_bf16" in done.stderr  # the template's regions, so the user sees what exists
    garbled = tmp_path / "garbled.json"
    garbled.write_text("{not json")
    done = run_compile("--code", garbled, "--cache", tmp_path / "cache")
    assert done.returncode == 2 and f"--code {garbled}: not JSON" in done.stderr
    listed = tmp_path / "list.json"
    listed.write_text("[]")
    done = run_compile("--code", listed, "--cache", tmp_path / "cache")
    assert done.returncode == 2 and "a JSON object of region name -> text, not list" in done.stderr
