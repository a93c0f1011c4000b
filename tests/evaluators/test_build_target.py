"""Builds for the run's GPUs: a siblings genome of the CUDA template built with only the split-kernel
entries its problem's calls pick there (evaluators/build_target.py), the code of those unchanged."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import UserError
from engine.export import build_cubins
from engine.template import load_template
from evaluators.build_target import BuildTarget
from evaluators.cuda_compile import compile_cuda, cuobjdump_path
from evaluators.sparse_mla import SparseMlaDecode
from evaluators.sparse_mla_cuda import parse_contract, split_plan
from tests.marks import NEEDS_NVCC
from tests.recording_worker import RecordingWorker
from tests.sparse_mla_source import merge_dispatch

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = load_template(REPO / "templates" / "sparse_mla.cu.j2")
SPACE = TEMPLATE.load_space()
SCORER = dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="scorer", STAGES=2, Q_LOAD="tma", TOPK_TILE=32,
              GATHER_LANES=8, PDL=True, COMBINE="siblings", FIRST_GATHER="pair_first", NUM_SPLITS="auto")
GENOMES = {
    # the bf16 small-batch genome of the bars, and FP8-656's, whose splits of whole tiles add counts
    "bf16 pairs i8": {**SCORER, "PARTIALS": "i8", "SPLIT_STEP": "pair", "PAIRING": "fixed"},
    "fp8 tiles i8": {**SCORER, "KV_FORMAT": "fp8_656", "PARTIALS": "i8", "SPLIT_STEP": "tile", "PAIRING": "adaptive"},
    "bf16 at most 16 splits": {**SCORER, "PARTIALS": "bf16", "NUM_SPLITS": 16},
    # the two-warpgroup wgmma kernel's entries (256 threads)
    "wgmma 256 threads": dict(MMA="wgmma", KV_FORMAT="bf16", HEADS_PER_CTA=64, HEADS_PER_WARP=16, THREADS=256,
                              TOPK_TILE=64, STAGES=2, NUM_SPLITS="auto", COMBINE="siblings", PARTIALS="bf16"),
}
SM_COUNTS = [(132,), (114,), (78,), (114, 132)]  # H200 and H100 SXM, H100 PCIe, a smaller part, two kinds


def params_of(genes: dict) -> dict:
    params = {**SPACE.default_params(), **genes}
    assert SPACE.is_valid(params), genes
    return params


@pytest.mark.parametrize("sms", SM_COUNTS, ids=lambda s: "+".join(map(str, s)))
@pytest.mark.parametrize("name", sorted(GENOMES))
def test_every_call_of_the_problem_takes_the_entry_it_takes_in_the_whole_build(name, sms):
    params = params_of(GENOMES[name])
    whole = parse_contract(TEMPLATE.render(params))
    narrow_source = TEMPLATE.render(params, target=BuildTarget(sms))
    narrow = parse_contract(narrow_source)
    problem = SparseMlaDecode(params["KV_FORMAT"])
    # every holding a launch could meet: as many CTAs an SM as its 228 KB of shared memory (1 KB a
    # CTA reserved) and 2,048 threads take (every siblings genome of today's space: one)
    holdings = range(1, 1 + min(233472 // (whole.smem_bytes + 1024), 2048 // whole.threads))
    for batch, heads, topk in problem.launch_shapes("cuda"):
        for sm in sms:
            for per_sm in holdings:
                splits = split_plan(whole, batch, heads, topk, sm, resident_ctas=sm * per_sm)[0]
                assert split_plan(narrow, batch, heads, topk, sm, resident_ctas=sm * per_sm)[0] == splits
                assert narrow.split_kernel_for(splits) == whole.split_kernel_for(splits), (batch, sm, per_sm)
    # ... and counts no call picks are left out, their merges with them
    assert set(narrow.split_kernels) < set(whole.split_kernels)
    assert merge_dispatch(narrow_source).items() < merge_dispatch(TEMPLATE.render(params)).items()


def test_a_genome_without_entries_of_its_own_renders_the_same_for_any_target():
    params = params_of({**GENOMES["bf16 pairs i8"], "COMBINE": "separate", "PARTIALS": "bf16"})
    assert TEMPLATE.render(params, target=BuildTarget((132,))) == TEMPLATE.render(params)
    assert not parse_contract(TEMPLATE.render(params)).split_kernels


def test_the_target_comes_from_the_workers_cuda_gpus_only():
    cuda = {"device_kind": "cuda", "gpu": "NVIDIA H200", "sm_count": "132"}
    assert BuildTarget.of_envs([cuda, {**cuda, "sm_count": "114"}, cuda]) == BuildTarget((114, 132))
    assert BuildTarget.of_envs([{"device_kind": "cpu", "sm_count": ""}]) is None
    assert BuildTarget.of_envs([cuda, {**cuda, "sm_count": ""}]) is None  # a worker that does not say: build whole
    assert BuildTarget.of_envs([]) is None


def test_a_build_variable_that_is_a_gene_is_refused_naming_both(tmp_path):
    text = TEMPLATE.text.replace('build_variables = ["LAUNCHED_SPLITS"]', 'build_variables = ["KV_FORMAT"]')
    path = tmp_path / "t.cu.j2"
    path.write_text(text.replace('space = "../genomes/', f'space = "{REPO}/genomes/'))
    with pytest.raises(UserError, match=r"build_variables names genes .*\['KV_FORMAT'\]"):
        load_template(path).check_holes(SPACE)
    path.write_text(text.replace('build_variables = ["KV_FORMAT"]', 'build_variables = "LAUNCHED_SPLITS"')
                    .replace('space = "../genomes/', f'space = "{REPO}/genomes/'))
    with pytest.raises(UserError, match=r"t.cu.j2: front matter build_variables must be a list"):
        load_template(path)


def test_without_the_declaration_the_variable_is_an_unfilled_hole(tmp_path):
    path = tmp_path / "t.cu.j2"
    path.write_text(TEMPLATE.text.replace('build_variables = ["LAUNCHED_SPLITS"]\n', "")
                    .replace('space = "../genomes/', f'space = "{REPO}/genomes/'))
    with pytest.raises(UserError, match=r"undefined variables \['LAUNCHED_SPLITS'\]"):
        load_template(path).check_holes(SPACE)


@functools.cache
def _sources() -> dict[str, str]:
    """The bf16 small-batch genome whole and for an H200, and another genome for an H200."""
    params = params_of(GENOMES["bf16 pairs i8"])
    other = params_of({**GENOMES["bf16 pairs i8"], "VALUE_ISSUE": "after_scores"})
    h200 = BuildTarget((132,))
    return {"whole": TEMPLATE.render(params), "h200": TEMPLATE.render(params, target=h200),
            "other h200": TEMPLATE.render(other, target=h200)}


def NVCC_SOURCES() -> list[str]:  # noqa: N802 - the name tests/nvcc_prebuild.py looks for
    return list(_sources().values())


@pytest.fixture(scope="module")
def builds(nvcc_cache):
    """_sources() built (in the session's cache, which tests/nvcc_prebuild.py fills ahead)."""
    sources = _sources()
    return nvcc_cache, sources, {name: compile_cuda(source, nvcc_cache) for name, source in sources.items()}


def as_the_run_left_them(run_cubins: Path, cache: Path, *builds) -> None:
    """``builds`` in a run's cubin cache as its workers would have left them: the very folders
    (cubin, ptxas log) the session's cache holds, without building each again (10 s apiece)."""
    for build in builds:
        shutil.copytree(cache / build.key, run_cubins / build.key, dirs_exist_ok=True)


def _sass(cubin: str, kernel: str) -> str:
    out = subprocess.run([cuobjdump_path(), "-sass", "-fun", kernel, cubin], capture_output=True, text=True,
                         check=True).stdout
    return "\n".join(line.split("*/", 1)[-1] for line in out.splitlines() if "/*" in line)  # less the addresses


@NEEDS_NVCC
def test_the_entries_left_in_build_to_the_same_machine_code_as_in_the_whole_build(builds):
    if cuobjdump_path() is None:
        pytest.skip("needs cuobjdump")
    _, _, built = builds
    assert built["whole"].ok and built["h200"].ok
    kept = [k.name for k in built["h200"].kernels]
    assert len(kept) < len(built["whole"].kernels) and "sparse_mla_decode_split_s8" in kept
    for name in kept:
        sass = _sass(built["h200"].cubin, name)
        assert sass.count("\n") > 100 and sass == _sass(built["whole"].cubin, name), name


@NEEDS_NVCC
def test_export_ships_the_whole_build_and_checks_it_against_the_runs(builds, tmp_path):
    cache, sources, built = builds
    run = tmp_path / "run"
    (run / "cubins").mkdir(parents=True)
    # the run's own builds, and the whole build export makes there (what it does with it is the test)
    as_the_run_left_them(run / "cubins", cache, built["h200"], built["other h200"], built["whole"])

    def table_for(timed_key: str) -> dict:
        totals = built[timed_key].totals()
        table = {"kernels": {"g": {"source": "kernels/g.cu", "run_resources": dict(totals)}}}
        build_cubins(table, {"kernels/g.cu": sources["whole"]}, run, {"kernels/g.cu": sources[timed_key]})
        return table["kernels"]["g"]

    shipped = table_for("h200")
    assert "note" not in shipped and shipped["resources"] == built["h200"].totals()
    # a timed build whose entries are not the shipped ones' is named
    assert "differ from the run's build of the same entries" in table_for("other h200")["note"]


@NEEDS_NVCC
def test_engine_compile_builds_a_genome_as_a_run_on_the_named_gpus_does(builds):
    cache, sources, built = builds
    genome = json.dumps(GENOMES["bf16 pairs i8"])
    done = subprocess.run([sys.executable, "-m", "engine", "compile", "templates/sparse_mla.cu.j2", "--genome", genome,
                           "--sm-counts", "132", "--cache", str(cache)], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["build_key"] == built["h200"].key and figures["cache_hit"]  # the run's very build
    refused = subprocess.run([sys.executable, "-m", "engine", "compile", "templates/sparse_mla.cu.j2",
                              "--sm-counts", "132,H200"], cwd=REPO, capture_output=True, text=True)
    assert refused.returncode == 2 and "SM counts separated by commas" in refused.stderr


def test_a_run_notes_every_gpu_it_built_for_so_that_export_builds_as_it_timed(tmp_path):
    from engine.run_folder import build_target_of, open_run, read_config, set_build_target

    run = tmp_path / "run"
    open_run(run, TEMPLATE, "tpe", 1, resume=False)
    assert build_target_of(read_config(run)) is None  # nothing noted: built whole
    set_build_target(run, None)  # a CPU worker's run
    assert read_config(run).build_sm_counts == []
    set_build_target(run, BuildTarget((132,)))
    set_build_target(run, BuildTarget((114,)))  # resumed on another card
    assert build_target_of(read_config(run)) == BuildTarget((114, 132))


class _H200Worker(RecordingWorker):
    """The real worker (on this machine's CPU, where a CUDA kernel is built but not run), with the
    build target a run's pool gives on an H200."""

    build_target = BuildTarget((132,))


def test_each_row_notes_the_gpus_its_genome_was_built_for(tmp_path, request):
    from engine.loop import EvolveLoop
    from engine.run_folder import open_run
    from engine.store.reader import read_records
    from engine.store.writer import ResultsWriter
    from engine.strategies import Proposal, make_strategy

    run = tmp_path / "run"
    config = open_run(run, TEMPLATE, "random", 1, resume=False)
    if shutil.which("nvcc"):  # the worker's build found where it builds (tmp_path/cubins), not made again
        cache, _, built = request.getfixturevalue("builds")
        as_the_run_left_them(tmp_path / "cubins", cache, built["h200"])
    runner = _H200Worker(tmp_path / "kernels", tmp_path / "worker.log", device="cpu", timeout_s=120)
    try:
        loop = EvolveLoop(TEMPLATE, SPACE, make_strategy("random", SPACE, 1), runner,
                          ResultsWriter(run, config.run_id), 2, cpu_rows=True)
        loop.attempt_batch([Proposal(params_of(GENOMES["bf16 pairs i8"]), "test"),
                            Proposal({**params_of(GENOMES["bf16 pairs i8"]), "THREADS": 7}, "test")])
    finally:
        runner.stop()
    invalid, built = read_records(run)  # refused before anything was sent
    assert built["build_sm_counts"] == [132] and invalid["status"] == "invalid_genome"
    assert invalid["build_sm_counts"] is None  # nothing rendered, nothing built
    (request,) = runner.requests
    assert request["source"] == TEMPLATE.render(params_of(GENOMES["bf16 pairs i8"]), target=BuildTarget((132,)))


def test_export_builds_each_kernel_for_the_gpus_its_row_names_and_older_rows_for_the_runs():
    from engine.export import timed_target

    run_target = BuildTarget((114, 132))  # a run resumed on another card notes both
    assert timed_target({"run_build_sm_counts": [132]}, run_target) == BuildTarget((132,))
    assert timed_target({}, run_target) == run_target  # a row from before schema 8
    assert timed_target({}, None) is None


@NEEDS_NVCC
def test_a_run_resumed_on_another_gpu_exports_its_earlier_winners_as_they_were_built(builds, tmp_path):
    """The first session ran on an H200, a resumed one on a 114-SM H100: run.json notes both, and
    the H200's winner is built again for the H200 alone, so its figures match the run's with no
    note (built for both, it would carry more entries and more code)."""
    import io

    from engine.export import export
    from engine.genome import Genome
    from engine.run_folder import open_run, set_build_target
    from engine.store.reader import read_records
    from engine.store.writer import ResultsWriter

    cache, sources, built = builds
    run = tmp_path / "run"
    config = open_run(run, TEMPLATE, "tpe", 1, resume=False)
    set_build_target(run, BuildTarget((132,)))
    set_build_target(run, BuildTarget((114,)))
    (run / "cubins").mkdir()
    # the winner's build for the H200, which the loop below makes as the run did, and its whole
    # build, which export ships
    as_the_run_left_them(run / "cubins", cache, built["h200"], built["whole"])
    recorded = read_records(REPO / "docs" / "runs" / "h200-cuda15-20261205")
    template_row = next(r for r in recorded if r["operator"] == "default")
    rows = []
    for i, (genes, factor, operator) in enumerate([({}, 1.0, "default"), (GENOMES["bf16 pairs i8"], 0.7, "tpe")]):
        params = params_of(genes)
        timed = TEMPLATE.render(params, target=BuildTarget((132,)))
        totals = compile_cuda(timed, run / "cubins").totals()
        genome = Genome.make(SPACE, params, TEMPLATE.content_hash)
        row = {k: v for k, v in template_row.items() if k not in ("schema_version", "run_id", "created_at")}
        row.update(attempt=i, genome_id=genome.genome_id, params_json=genome.params_json, operator=operator,
                   template=str(TEMPLATE.path), template_hash=TEMPLATE.content_hash, build_sm_counts=[132],
                   workloads=[{**w, "median_us": w["median_us"] * factor, "iqr_us": w["median_us"] * 0.002}
                              for w in template_row["workloads"]], **totals)
        rows.append(row)
    ResultsWriter(run, config.run_id).append(rows)
    winner = rows[1]["genome_id"]
    both = TEMPLATE.render(params_of(GENOMES["bf16 pairs i8"]), target=BuildTarget((114, 132)))
    assert both != sources["h200"]  # the H100's split counts add entries: the run's union is not its build
    table = export(run, tmp_path / "export", io.StringIO())
    kernel = table["kernels"][winner]
    assert kernel["run_build_sm_counts"] == [132]
    assert "note" not in kernel, kernel["note"]
    assert kernel["resources"] == {k: rows[1][k] for k in kernel["resources"]}


def test_a_problem_that_refuses_the_genomes_arguments_leaves_the_build_whole():
    source = TEMPLATE.render(params_of(GENOMES["bf16 pairs i8"]))
    h200 = BuildTarget((132,))
    assert h200.variables("sparse_mla_decode", {"kv_format": "bf16"}, "cuda", source)["LAUNCHED_SPLITS"]
    assert h200.variables("sparse_mla_decode", {"kv_format": "fp4"}, "cuda", source) == {}
    assert h200.variables("no_such_problem", {}, "cuda", source) == {}
    assert h200.variables("sparse_mla_decode", {"kv_format": "bf16"}, "cuda", "no launch line") == {}
