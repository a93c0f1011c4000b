"""The real CUDA template (templates/sparse_mla.cu.j2) on a machine with nvcc and no GPU: its
genomes build for sm_90a without spills, the launch line it emits agrees with the genes, the
trusted launcher's split plan covers the top-k list, and the harness, the worker and the CLI
type what cannot run here (compile error, GPU-only runtime, static rejection) in one clear way."""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.template import load_template
from evaluators.cuda_compile import CompileAhead
from evaluators.cubin_elf import kernel_parameter_sizes
from evaluators.sparse_mla_cuda import (PARAM_KINDS, SIBLING_WORDS, ContractError, LaunchContract, combine_threads,
                                        launched_parameters, parameter_size_faults, parse_contract, partial_buffers,
                                        query_map_arguments, split_grid, split_plan)
from evaluators.static_cuda import kernel_parameters, parameter_fault
from tests.marks import NEEDS_NVCC
from tests.scripts._device_script import load_device_script
from tests.sparse_mla_source import merge_dispatch

pytestmark = NEEDS_NVCC

REPO = Path(__file__).resolve().parents[2]
TEMPLATE_REL = "templates/sparse_mla.cu.j2"
TEMPLATE = load_template(REPO / TEMPLATE_REL)
SPACE = TEMPLATE.load_space()
SMEM_LIMIT = 232448  # 227 KB of dynamic shared memory per block on sm_90

# Both cache formats, 16 and 32 heads per warp, fused and separate combine, 1 and 3 stages,
# auto and fixed splits, one to four warps along the columns, and both matrix instructions.
GENOMES = {
    "bf16_hpw16_separate_s3_auto": dict(MMA="mma_sync", KV_FORMAT="bf16", HEADS_PER_CTA=64, HEADS_PER_WARP=16,
                                        THREADS=256, TOPK_TILE=32, STAGES=3, NUM_SPLITS="auto",
                                        COMBINE="separate", PDL=True),
    "fp8_hpw32_fused_s1_4splits": dict(MMA="mma_sync", KV_FORMAT="fp8_656", HEADS_PER_CTA=64, HEADS_PER_WARP=32,
                                       THREADS=256, TOPK_TILE=64, STAGES=1, NUM_SPLITS=4, COMBINE="fused",
                                       PARTIALS="bf16"),
    "fp8_hpw16_separate_s3_auto": dict(MMA="mma_sync", KV_FORMAT="fp8_656", HEADS_PER_CTA=16, HEADS_PER_WARP=16,
                                       THREADS=128, TOPK_TILE=32, STAGES=3, NUM_SPLITS="auto",
                                       COMBINE="separate"),
    "fp8_hpw16_fused_s3_512threads": dict(MMA="mma_sync", KV_FORMAT="fp8_656", HEADS_PER_CTA=64,
                                          HEADS_PER_WARP=16, THREADS=512, TOPK_TILE=32, STAGES=3, NUM_SPLITS=2,
                                          COMBINE="fused"),
    "wgmma_bf16_separate_s2_auto": dict(MMA="wgmma", KV_FORMAT="bf16", HEADS_PER_CTA=64, HEADS_PER_WARP=16,
                                        THREADS=256, TOPK_TILE=64, STAGES=2, NUM_SPLITS="auto",
                                        COMBINE="separate"),
    "wgmma_fp8_fused_s1_8splits": dict(MMA="wgmma", KV_FORMAT="fp8_656", HEADS_PER_CTA=64, HEADS_PER_WARP=16,
                                       THREADS=256, TOPK_TILE=64, STAGES=1, NUM_SPLITS=8, COMBINE="fused"),
    # the overlap pipeline, whose every genome had its wgmma serialized by ptxas (C7515) until 2026-12-04
    "wgmma_bf16_overlap_s2_separate": dict(MMA="wgmma", PIPELINE="overlap", KV_FORMAT="bf16", HEADS_PER_CTA=64,
                                           HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=64, STAGES=2,
                                           NUM_SPLITS="auto", COMBINE="separate"),
    "wgmma_fp8_overlap_s1_siblings": dict(MMA="wgmma", PIPELINE="overlap", KV_FORMAT="fp8_656", HEADS_PER_CTA=64,
                                          HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=64, STAGES=1,
                                          NUM_SPLITS="auto", COMBINE="siblings", PARTIALS="bf16"),
    "seesaw_bf16_32rows_8lanes_auto": dict(MMA="wgmma", PIPELINE="seesaw", KV_FORMAT="bf16", HEADS_PER_CTA=64,
                                           HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32, STAGES=2, GATHER_LANES=8,
                                           NUM_SPLITS="auto", COMBINE="separate"),
    "seesaw_fp8_64rows_prefetch_fused": dict(MMA="wgmma", PIPELINE="seesaw", KV_FORMAT="fp8_656", HEADS_PER_CTA=64,
                                             HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=64, STAGES=2,
                                             GATHER_LANES=4, L2_PREFETCH=2, NUM_SPLITS=8, COMBINE="fused",
                                             PARTIALS="bf16"),
    "seesaw_bf16_cluster_auto": dict(MMA="wgmma", PIPELINE="seesaw", KV_FORMAT="bf16", HEADS_PER_CTA=64,
                                     HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32, STAGES=2, GATHER_LANES=8,
                                     NUM_SPLITS="auto", COMBINE="cluster"),
    "seesaw_bf16_value_split_pdl": dict(MMA="wgmma", PIPELINE="seesaw", KV_FORMAT="bf16", HEADS_PER_CTA=64,
                                        HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32, STAGES=2, GATHER_LANES=8,
                                        NUM_SPLITS="auto", COMBINE="separate", PARTIALS="bf16", PDL=True,
                                        VALUE_SPLIT=2),
    "seesaw_fp8_64rows_value_split": dict(MMA="wgmma", PIPELINE="seesaw", KV_FORMAT="fp8_656", HEADS_PER_CTA=64,
                                          HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=64, STAGES=2, GATHER_LANES=8,
                                          NUM_SPLITS="auto", COMBINE="separate", VALUE_SPLIT=2),
    "seesaw_fp8_64rows_cluster16": dict(MMA="wgmma", PIPELINE="seesaw", KV_FORMAT="fp8_656", HEADS_PER_CTA=64,
                                        HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=64, STAGES=2, GATHER_LANES=8,
                                        NUM_SPLITS=16, COMBINE="cluster"),
    "seesaw_bf16_groups9_value_split": dict(MMA="wgmma", PIPELINE="seesaw", KV_FORMAT="bf16", HEADS_PER_CTA=64,
                                                 HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32, STAGES=2,
                                                 GATHER_LANES=2, NUM_SPLITS="auto", COMBINE="separate",
                                                 ARRIVAL_GROUPS=9, VALUE_SPLIT=2),
    "seesaw_bf16_q_tma_groups3": dict(MMA="wgmma", PIPELINE="seesaw", KV_FORMAT="bf16", HEADS_PER_CTA=64,
                                      HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32, STAGES=2, GATHER_LANES=8,
                                      NUM_SPLITS="auto", COMBINE="separate", PARTIALS="bf16", PDL=True,
                                      Q_LOAD="tma", ARRIVAL_GROUPS=3),
    "seesaw_fp8_q_tma_cluster": dict(MMA="wgmma", PIPELINE="seesaw", KV_FORMAT="fp8_656", HEADS_PER_CTA=64,
                                     HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=64, STAGES=2, GATHER_LANES=4,
                                     NUM_SPLITS=8, COMBINE="cluster", Q_LOAD="tma"),
    "seesaw_bf16_bulk_rows_value_split": dict(MMA="wgmma", PIPELINE="seesaw", KV_FORMAT="bf16", HEADS_PER_CTA=64,
                                              HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=64, STAGES=2, GATHER_LANES=8,
                                              NUM_SPLITS="auto", COMBINE="separate", PARTIALS="bf16", PDL=True,
                                              Q_LOAD="tma", VALUE_SPLIT=2, ROW_STORE="bulk"),
    "seesaw_fp8_bulk_rows_fp32": dict(MMA="wgmma", PIPELINE="seesaw", KV_FORMAT="fp8_656", HEADS_PER_CTA=64,
                                      HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32, STAGES=2, GATHER_LANES=8,
                                      NUM_SPLITS="auto", COMBINE="separate", ROW_STORE="bulk"),
    "seesaw_fp8_groups3_fused": dict(MMA="wgmma", PIPELINE="seesaw", KV_FORMAT="fp8_656", HEADS_PER_CTA=64,
                                     HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32, STAGES=2, GATHER_LANES=8,
                                     NUM_SPLITS=4, COMBINE="fused", ARRIVAL_GROUPS=3),
    "pingpong_bf16_q_tma_groups3_pdl": dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="pingpong", KV_FORMAT="bf16",
                                            HEADS_PER_CTA=64, HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32,
                                            STAGES=2, GATHER_LANES=8, NUM_SPLITS="auto", COMBINE="separate",
                                            PARTIALS="bf16", PDL=True, Q_LOAD="tma", ARRIVAL_GROUPS=3),
    "pingpong_bf16_groups9_fused": dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="pingpong", KV_FORMAT="bf16",
                                        HEADS_PER_CTA=64, HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32, STAGES=2,
                                        GATHER_LANES=4, NUM_SPLITS=4, COMBINE="fused", ARRIVAL_GROUPS=9),
    "pingpong_bf16_64rows_q_tma_bulk_rows": dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="pingpong",
                                                 KV_FORMAT="bf16", HEADS_PER_CTA=64, HEADS_PER_WARP=16, THREADS=256,
                                                 TOPK_TILE=64, STAGES=2, GATHER_LANES=8, NUM_SPLITS="auto",
                                                 COMBINE="separate", Q_LOAD="tma", ARRIVAL_GROUPS=3,
                                                 ROW_STORE="bulk"),
    "pingpong_bf16_64rows_2lanes_32splits": dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="pingpong",
                                                 KV_FORMAT="bf16", HEADS_PER_CTA=64, HEADS_PER_WARP=16, THREADS=256,
                                                 TOPK_TILE=64, STAGES=2, GATHER_LANES=2, NUM_SPLITS=32,
                                                 COMBINE="separate", PARTIALS="bf16"),
    "scorer_bf16_pdl": dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="scorer", KV_FORMAT="bf16", HEADS_PER_CTA=64,
                            HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32, STAGES=2, GATHER_LANES=8,
                            NUM_SPLITS="auto", COMBINE="separate", PARTIALS="bf16", PDL=True, Q_LOAD="tma"),
    "scorer_bf16_bulk_rows_one_split": dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="scorer", KV_FORMAT="bf16",
                                            HEADS_PER_CTA=64, HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32,
                                            STAGES=2, GATHER_LANES=8, NUM_SPLITS=1, COMBINE="separate",
                                            Q_LOAD="tma", ROW_STORE="bulk"),
    "scorer_bf16_fused": dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="scorer", KV_FORMAT="bf16", HEADS_PER_CTA=64,
                              HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32, STAGES=2, GATHER_LANES=8, NUM_SPLITS=4,
                              COMBINE="fused", Q_LOAD="tma"),
    "scorer_bf16_staged_rows_pdl": dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="scorer", KV_FORMAT="bf16",
                                        HEADS_PER_CTA=64, HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32, STAGES=2,
                                        GATHER_LANES=8, NUM_SPLITS="auto", COMBINE="separate", PARTIALS="bf16",
                                        PDL=True, Q_LOAD="tma", ROW_STORE="staged"),
    "seesaw_bf16_64rows_staged_rows_value_split": dict(MMA="wgmma", PIPELINE="seesaw", KV_FORMAT="bf16",
                                                       HEADS_PER_CTA=64, HEADS_PER_WARP=16, THREADS=256,
                                                       TOPK_TILE=64, STAGES=2, GATHER_LANES=8, NUM_SPLITS="auto",
                                                       COMBINE="separate", PARTIALS="bf16", VALUE_SPLIT=2,
                                                       ROW_STORE="staged"),
    "pingpong_bf16_bulk_rows_one_split": dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="pingpong", KV_FORMAT="bf16",
                                              HEADS_PER_CTA=64, HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32,
                                              STAGES=2, GATHER_LANES=8, NUM_SPLITS=1, COMBINE="separate",
                                              Q_LOAD="tma", ROW_STORE="bulk"),
    "scorer_bf16_siblings_pdl": dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="scorer", KV_FORMAT="bf16",
                                     HEADS_PER_CTA=64, HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32, STAGES=2,
                                     GATHER_LANES=8, NUM_SPLITS="auto", COMBINE="siblings", PARTIALS="bf16",
                                     PDL=True, Q_LOAD="tma"),
    "scorer_bf16_siblings_tile_splits": dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="scorer", KV_FORMAT="bf16",
                                             HEADS_PER_CTA=64, HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32, STAGES=2,
                                             GATHER_LANES=8, NUM_SPLITS="auto", COMBINE="siblings", PARTIALS="bf16",
                                             PDL=True, Q_LOAD="tma", SPLIT_STEP="tile"),
    "scorer_fp8_siblings_tile_splits": dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="scorer", KV_FORMAT="fp8_656",
                                            HEADS_PER_CTA=64, HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32, STAGES=2,
                                            GATHER_LANES=8, NUM_SPLITS="auto", COMBINE="siblings", PARTIALS="bf16",
                                            PDL=True, Q_LOAD="tma", SPLIT_STEP="tile", FIRST_GATHER="pair_first"),
    # adaptive pairs (the scoring warpgroup's vote): FP8 in whole tiles, FP8 in pairs on one split
    "scorer_fp8_siblings_tile_splits_adaptive": dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="scorer",
                                                     KV_FORMAT="fp8_656", HEADS_PER_CTA=64, HEADS_PER_WARP=16,
                                                     THREADS=256, TOPK_TILE=32, STAGES=2, GATHER_LANES=8,
                                                     NUM_SPLITS="auto", COMBINE="siblings", PARTIALS="bf16", PDL=True,
                                                     Q_LOAD="tma", SPLIT_STEP="tile", FIRST_GATHER="pair_first",
                                                     PAIRING="adaptive"),
    "scorer_fp8_one_split_pairs_adaptive": dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="scorer", KV_FORMAT="fp8_656",
                                                HEADS_PER_CTA=64, HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32,
                                                STAGES=2, GATHER_LANES=8, NUM_SPLITS=1, COMBINE="separate",
                                                PARTIALS="bf16", Q_LOAD="tma", FIRST_GATHER="pair_first",
                                                PAIRING="adaptive"),
    "seesaw_fp8_siblings_staged_rows": dict(MMA="wgmma", PIPELINE="seesaw", KV_FORMAT="fp8_656", HEADS_PER_CTA=64,
                                            HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32, STAGES=2, GATHER_LANES=8,
                                            NUM_SPLITS="auto", COMBINE="siblings", PARTIALS="bf16",
                                            ROW_STORE="staged"),
    # i8 partials: the bf16 small-batch genome and the FP8 adaptive scorer
    "scorer_bf16_siblings_i8_tiles_held": dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="scorer", KV_FORMAT="bf16",
                                               HEADS_PER_CTA=64, HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32,
                                               STAGES=2, GATHER_LANES=8, NUM_SPLITS="auto", COMBINE="siblings",
                                               PARTIALS="i8", PDL=True, Q_LOAD="tma", SPLIT_STEP="tile",
                                               FIRST_GATHER="pair_first", VALUE_ISSUE="after_scores"),
    "scorer_fp8_siblings_i8_adaptive": dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="scorer", KV_FORMAT="fp8_656",
                                            HEADS_PER_CTA=64, HEADS_PER_WARP=16, THREADS=256, TOPK_TILE=32, STAGES=2,
                                            GATHER_LANES=8, NUM_SPLITS="auto", COMBINE="siblings", PARTIALS="i8",
                                            PDL=True, Q_LOAD="tma", SPLIT_STEP="tile", FIRST_GATHER="pair_first",
                                            PAIRING="adaptive"),
    "scorer_fp8_siblings_i8_adaptive_bf16_places": dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="scorer",
                                                        KV_FORMAT="fp8_656", HEADS_PER_CTA=64, HEADS_PER_WARP=16,
                                                        THREADS=256, TOPK_TILE=32, STAGES=2, GATHER_LANES=8,
                                                        NUM_SPLITS="auto", COMBINE="siblings", PARTIALS="i8", PDL=True,
                                                        Q_LOAD="tma", SPLIT_STEP="tile", FIRST_GATHER="pair_first",
                                                        PAIRING="adaptive", FP8_RAW_PLACES="bf16"),
    "wgmma_bf16_siblings_16splits": dict(MMA="wgmma", KV_FORMAT="bf16", HEADS_PER_CTA=64, HEADS_PER_WARP=16,
                                         THREADS=256, TOPK_TILE=64, STAGES=2, NUM_SPLITS=16, COMBINE="siblings",
                                         PARTIALS="bf16"),
}


def launch_threads(genes: dict) -> int:
    """Threads per CTA: the seesaw kernel adds a producer warpgroup to the two that compute."""
    return 384 if genes.get("PIPELINE") == "seesaw" else genes["THREADS"]


def params_of(genes: dict) -> dict:
    """The genes over the space's defaults (a gene added later keeps its default)."""
    params = {**SPACE.default_params(), **genes}
    assert SPACE.is_valid(params), SPACE.violations(params)
    return params


def render(genes: dict) -> str:
    return TEMPLATE.render(params_of(genes))


@functools.cache
def _module_sources() -> dict:
    """Every source this module builds: GENOMES by name, the seesaw shapes, the probe tests'
    instrumented sources (or the exception their instrumentation raised)."""
    return {"genomes": {name: render(genes) for name, genes in GENOMES.items()},
            "seesaw": {shape: render(dict(MMA="wgmma", PIPELINE="seesaw", STAGES=2, KV_FORMAT=shape[0],
                                          TOPK_TILE=shape[1], GATHER_LANES=shape[2], NUM_SPLITS=4, COMBINE="fused"))
                       for shape in SEESAW_SHAPES},
            "probed": _probed_sources()}


def NVCC_SOURCES() -> list[str]:  # noqa: N802 - the name tests/nvcc_prebuild.py looks for
    return [source for group in _module_sources().values() for source in group.values() if isinstance(source, str)]


@pytest.fixture(scope="module")
def module_sources() -> dict:
    return _module_sources()


@pytest.fixture(scope="module")
def compiler(nvcc_cache, module_sources):
    """One nvcc pool for the module, two at a time, every source submitted at once: each fixture
    below waits only for its own, and the rest build while the tests before them run (three pools
    one after another left a core idle at each one's end). The session's cache holds what the
    background build (tests/nvcc_prebuild.py) has built of them already."""
    ahead = CompileAhead(nvcc_cache, workers=2)
    try:  # closed even when a submission raises (a fixture's teardown runs only after its yield)
        for source in NVCC_SOURCES():
            ahead.submit(source)
        yield ahead
    finally:
        ahead.close()


@pytest.fixture(scope="module")
def builds(module_sources, compiler):
    """Every genome of GENOMES rendered and built by nvcc: name -> (source, build)."""
    return {name: (source, compiler.result(source)) for name, source in module_sources["genomes"].items()}


def test_the_chosen_genomes_cover_the_axes_the_template_branches_on():
    values = lambda gene: {g[gene] for g in GENOMES.values()}  # noqa: E731
    assert values("KV_FORMAT") == {"bf16", "fp8_656"}
    assert values("HEADS_PER_WARP") == {16, 32}
    assert values("COMBINE") == {"separate", "fused", "cluster", "siblings"}
    assert {g.get("PARTIALS", "fp32") for g in GENOMES.values()} == {"fp32", "bf16", "i8"}
    assert {g.get("PDL", False) for g in GENOMES.values()} == {False, True}
    assert {g.get("VALUE_SPLIT", 1) for g in GENOMES.values()} == {1, 2}
    assert {g.get("ARRIVAL_GROUPS", 1) for g in GENOMES.values()} == {1, 3, 9}
    assert {g.get("Q_LOAD", "cp_async") for g in GENOMES.values()} == {"cp_async", "tma"}
    assert {g.get("ROW_STORE", "threads") for g in GENOMES.values()} == {"threads", "bulk", "staged"}
    assert {g.get("SCHEDULE", "lockstep") for g in GENOMES.values()} == {"lockstep", "pingpong", "scorer"}
    assert {g.get("FP8_RAW_PLACES", "odd_flipped") for g in GENOMES.values()} == {"odd_flipped", "bf16"}
    assert {1, 3} <= values("STAGES")
    assert values("MMA") == {"mma_sync", "wgmma"}
    assert {g.get("PIPELINE", "serial") for g in GENOMES.values()} == {"serial", "overlap", "seesaw"}
    for genes in GENOMES.values():
        params_of(genes)  # each one is a point of the space


@pytest.mark.parametrize("name", sorted(n for n, g in GENOMES.items() if g.get("PIPELINE") == "seesaw"))
def test_the_seesaw_warpgroups_register_counts_fit_in_what_the_launch_gave(name):
    # setmaxnreg.inc waits until the CTA's pool holds the registers it asks for, and the pool is
    # what the launch gave (384 threads x 168): counts past it leave a warpgroup waiting for good,
    # a hang at the first launch that no compiler reports
    source = render(GENOMES[name])
    counts = [int(n) for n in re.findall(r"regs_(?:up|down)<(\d+)>\(\);", source)]
    assert len(counts) == 2, counts
    third, other_two = counts  # the branch of warpgroup 2 (producer or scorer) comes first
    assert third % 8 == 0 and other_two % 8 == 0
    assert 128 * third + 256 * other_two <= 384 * 168, counts


@pytest.mark.parametrize("name", sorted(GENOMES))
def test_genome_builds_for_sm90a_without_spills_and_with_both_kernels(builds, name):
    source, build = builds[name]
    assert build.ok, build.log[-3000:]
    assert Path(build.cubin).read_bytes()[:4] == b"\x7fELF"
    contract = parse_contract(source)
    kernels = {k.name: k for k in build.kernels}
    assert {contract.split_kernel, contract.combine_kernel} <= set(kernels), sorted(kernels)
    for k in build.kernels:
        assert k.spill_store_bytes == 0 and k.spill_load_bytes == 0, (k, build.log)
    # nvcc has nothing to say: no warning (a declaration this genome leaves unused, ...) and no
    # ptxas advisory (wgmma serialized, C7510-C7520, the one that costs the tensor cores' overlap)
    assert build.notes() == (), build.notes()
    # the matrix instruction the genome names is the one in the source
    assert ("wgmma.mma_async" in source) == (GENOMES[name]["MMA"] == "wgmma")
    split = kernels[contract.split_kernel]
    assert split.stack_bytes == 0, split  # the accumulators stay in registers, not local memory
    # the siblings' merge: an entry for each split count with a merge of its own, carrying only
    # that merge beside the body (one merge is 10-25 KB; all of them in one entry made 240-350 KB,
    # which lost 4-7 us a call once other kernels had run between calls, where an entry with one
    # merge lost none: H100, sixty-third session), each within the launch bounds
    assert [n for n, _ in contract.split_kernels] == sorted(merge_dispatch(source)) if \
        GENOMES[name]["COMBINE"] == "siblings" else contract.split_kernels == ()
    for _, entry in contract.split_kernels:
        k = kernels[entry]
        assert k.stack_bytes == 0 and 64 <= k.registers <= min(255, 65536 // launch_threads(GENOMES[name])), k
        assert k.code_bytes < split.code_bytes + 40_000, (k, split)
    # ptxas runs the warpgroup products one at a time when it cannot keep them asynchronous (a
    # wait between the products of one group that depends on the warpgroup did that: C7520;
    # rescaling the accumulators behind a partial wait did it too: C7514); it says so
    assert "wgmma.mma_async instructions are serialized" not in build.log, build.log
    # a warpgroup's setmaxnreg count that its code cannot live in makes ptxas ignore every count
    # (C7507): the compute warpgroups then run on the launch's 168 registers, or spill
    assert "'setmaxnreg' ignored" not in build.log, build.log
    # pingpong and scorer: single-tile buffers, each tile's P in its RoPE block (64-byte swizzle),
    # passed on with its "P ready" barrier; the scorer's queries are register operands
    schedule = GENOMES[name].get("SCHEDULE", "lockstep")
    single_tiles = schedule in ("pingpong", "scorer")
    assert ("constexpr bool PINGPONG = true;" in source) == (schedule == "pingpong")
    assert ("constexpr bool SCORER = true;" in source) == (schedule == "scorer")
    assert ("wgmma_scores_rs(s, qa[kk], db)" in source) == (schedule == "scorer")
    assert ("sw64_desc(" in source) == single_tiles and ("bar_sync<BAR_P, 256>()" in source) == (
        GENOMES[name].get("PIPELINE") == "seesaw" and not single_tiles)
    # arrival groups: one mbarrier a group for the queries and for each pair buffer
    groups = GENOMES[name].get("ARRIVAL_GROUPS", 1)
    assert GENOMES[name].get("PIPELINE") != "seesaw" or f"constexpr int AG = {groups};" in source
    # the queries through the copy engine: the launch line asks the host for q's tensor map, which
    # the split kernel takes by value as its last parameter
    q_tma = GENOMES[name].get("Q_LOAD") == "tma"
    assert contract.q_tma == q_tma
    assert ("const __grid_constant__ kg::TensorMap q_map)" in source) == q_tma
    assert ("cp.async.bulk.tensor.2d" in source) == q_tma
    # rows staged in shared memory and written by the copy engine, one copy a head row
    bulk = GENOMES[name].get("ROW_STORE") == "bulk"
    assert ("cp.async.bulk.global.shared::cta.bulk_group" in source) == bulk
    assert ("write_rows_bulk(o," in source) == bulk
    # rows staged by each warp with stmatrix and stored back in whole lines
    staged = GENOMES[name].get("ROW_STORE") == "staged"
    assert ("stmatrix.sync.aligned.m8n8.x4.shared.b16" in source) == staged
    assert ("write_rows_staged<ONLY_S>(o," in source) == staged
    # the partials' type is the one the launch line tells the host to allocate (i8 partials live in
    # bf16-sized slots: a row's bytes, then its scales), and only i8 genomes store and merge bytes
    partials = GENOMES[name].get("PARTIALS", "fp32")
    assert contract.partials == ("fp32" if partials == "fp32" else "bf16")
    assert ("using PartT = __nv_bfloat16;" in source) == (partials != "fp32")
    assert ("constexpr bool I8_PARTIALS = true;" in source) == (partials == "i8")
    # PDL: the launch line asks for a dependent launch of the combine kernel, and the kernels
    # carry the two halves of the handshake (an early trigger, a wait before any partial is read)
    pdl = GENOMES[name].get("PDL", False)
    assert contract.pdl == pdl and contract.combine_threads_max == 512
    # a value split: VALUE_SPLIT times the CTAs, each warpgroup accumulating 256 / VALUE_SPLIT columns
    value_split = GENOMES[name].get("VALUE_SPLIT", 1)
    assert contract.value_split == value_split
    assert ("wgmma_values_part" in source) == (value_split > 1)
    assert value_split == 1 or f"m64n{256 // value_split}k16" in source
    assert ("griddepcontrol.launch_dependents" in source) == pdl and ("griddepcontrol.wait" in source) == pdl
    # with PDL both kernels are programmatic dependents: each lets the kernel after it launch and
    # waits for the kernel before it ahead of its first global access (the helpers hold the PTX)
    def body(helper):
        text = source[source.index(f"void {helper}() {{"):]
        return text[:text.index("\n}")]
    assert ("griddepcontrol.launch_dependents" in body("allow_dependent_launch")) == pdl
    assert ("griddepcontrol.wait" in body("wait_for_prior_grid")) == pdl
    split_body = split_kernel_code(source)
    assert split_body.count("wait_for_prior_grid();") == 1
    if GENOMES[name].get("PIPELINE") == "seesaw":  # after the shared-memory set-up, before any warpgroup's work
        assert split_body.index("__syncthreads();\n  wait_for_prior_grid();") < split_body.index("if (wg == 2) {")
    else:  # first thing
        assert "allow_dependent_launch();\n  wait_for_prior_grid();\n" in split_body
    combine_body = source[source.index("sparse_mla_decode_combine("):]
    assert "kg::allow_dependent_launch();\n  kg::wait_for_prior_grid();\n  kg::merge_head(" in combine_body
    # aiming at four 512-thread CTAs an SM, ptxas squeezes the combine kernel into 32 registers by
    # loading one split at a time; its launch bounds ask for two, which leave eight loads in flight
    assert kernels[contract.combine_kernel].registers > 32, kernels[contract.combine_kernel]
    # __launch_bounds__(THREADS, 1): the register file caps a thread at 65536 / THREADS (255 at most)
    assert 64 <= split.registers <= min(255, 65536 // launch_threads(GENOMES[name])), split
    totals = build.totals()
    assert totals["spill_bytes"] == 0 and 64 <= totals["registers"] <= 255
    # the split kernel's shared memory is all dynamic: the launcher passes smem_bytes from the
    # launch line (the combine kernel's few KB of reductions are static)
    assert split.shared_bytes == 0 and kernels[contract.combine_kernel].shared_bytes <= 8192


def split_kernel_code(source: str) -> str:
    """The split kernel's code: the wgmma kernels' split_body with the entries that call it, or
    the mma_sync kernel's one entry."""
    start = source.find("\nsplit_body(")
    start = start if start >= 0 else source.index("sparse_mla_decode_split(")
    return source[start:source.index("sparse_mla_decode_combine(")]


@pytest.mark.parametrize("name", sorted(GENOMES))
def test_every_kernel_a_launch_runs_takes_what_the_launcher_passes_in_source_and_cubin(builds, name):
    # else a launch reads garbage arguments (an illegal address, or a wrong answer): the worker
    # types a cubin that disagrees as compile_error, a template whose default genome does is refused
    source, build = builds[name]
    contract = parse_contract(source)
    assert build.ok and parameter_size_faults(contract, kernel_parameter_sizes(Path(build.cubin))) == []
    declared = kernel_parameters(source)
    for kernel, passed in launched_parameters(contract):
        for listed in declared[kernel]:
            assert parameter_fault(listed, [(p, PARAM_KINDS[p]) for p in passed]) is None, (kernel, listed)


@pytest.mark.parametrize("name", sorted(GENOMES))
def test_launch_line_agrees_with_the_genes(name):
    genes = GENOMES[name]
    contract = parse_contract(render(genes))
    assert (contract.heads_per_cta, contract.threads, contract.topk_tile, contract.num_splits,
            contract.combine, contract.kv_format) == \
        (genes["HEADS_PER_CTA"], launch_threads(genes),
         # the seesaw kernel takes its tiles in pairs, so splits are planned in whole pairs (the
         # scorer's splits of whole tiles in tiles)
         genes["TOPK_TILE"] * (2 if genes.get("PIPELINE") == "seesaw" and genes.get("SPLIT_STEP") != "tile" else 1),
         genes["NUM_SPLITS"],
         genes["COMBINE"], genes["KV_FORMAT"])
    assert contract.split_kernel != contract.combine_kernel
    # the query block and the pipelined tiles alone are a lower bound; 227 KB the upper one
    stage_row = 656 if genes["KV_FORMAT"] == "fp8_656" else 1152
    floor = genes["HEADS_PER_CTA"] * 1152 + genes["STAGES"] * genes["TOPK_TILE"] * stage_row
    assert floor <= contract.smem_bytes <= SMEM_LIMIT
    assert TEMPLATE.problem_kwargs(params_of(genes)) == {"kv_format": genes["KV_FORMAT"]}


def test_i8_partials_come_only_with_the_siblings_merge_and_the_threads_stores():
    # the separate and fused merges read 16- or 32-bit partials, and staged or bulk rows are 16-bit
    # stores: an i8 genome with any of them would merge bytes as bf16 values
    i8 = GENOMES["scorer_bf16_siblings_i8_tiles_held"]
    assert SPACE.is_valid({**SPACE.default_params(), **i8})
    for change in ({"COMBINE": "separate"}, {"COMBINE": "fused"}, {"ROW_STORE": "staged"}, {"ROW_STORE": "bulk"}):
        params = {**SPACE.default_params(), **i8, **change}
        assert any("i8 partials" in v for v in SPACE.violations(params)), change


def test_the_space_constraint_keeps_every_valid_genome_within_shared_memory():
    # the space's constraint is an estimate of the template's layout; it must not admit a genome
    # whose real layout (the launch line's smem_bytes) is over the limit. Sampled: one genome per
    # combination of the genes that size shared memory.
    seen, worst = set(), 0
    for params in SPACE.valid_points():
        key = tuple(params[g] for g in ("MMA", "PIPELINE", "HEADS_PER_CTA", "THREADS", "HEADS_PER_WARP",
                                        "TOPK_TILE", "STAGES", "KV_FORMAT"))
        if key in seen:
            continue
        seen.add(key)
        smem = parse_contract(TEMPLATE.render(params)).smem_bytes
        assert smem <= SMEM_LIMIT, (params, smem)
        worst = max(worst, smem)
    assert len(seen) > 50 and worst > SMEM_LIMIT * 0.8  # the constraint is tight, not vacuous


def contract(num_splits, heads_per_cta=64, topk_tile=32, combine="separate") -> LaunchContract:
    return LaunchContract("split", "combine", heads_per_cta, 256, topk_tile, num_splits, combine, "bf16", 1024)


@pytest.mark.parametrize("num_splits", ["auto", 1, 2, 4, 8, 16, 32])
@pytest.mark.parametrize("topk_tile", [32, 64])
@pytest.mark.parametrize("batch, heads, topk", [(1, 128, 2048), (8, 128, 2048), (128, 128, 2048), (3, 64, 256),
                                                (1, 64, 100), (2, 128, 33), (1, 16, 1)])
def test_split_plan_covers_the_topk_list_in_whole_tiles(num_splits, topk_tile, batch, heads, topk):
    c = contract(num_splits, heads_per_cta=16, topk_tile=topk_tile)
    splits, rows = split_plan(c, batch, heads, topk, sm_count=132)
    assert splits >= 1 and rows >= topk_tile and rows % topk_tile == 0
    assert splits * rows >= topk          # every row of the list belongs to a split
    assert (splits - 1) * rows < topk     # and no split is empty
    if num_splits != "auto":
        assert splits <= num_splits


def test_auto_splits_fill_the_sms_only_when_the_batch_does_not():
    c = contract("auto", heads_per_cta=64)
    assert split_plan(c, 128, 128, 2048, sm_count=132) == (1, 2048)  # 256 CTAs already
    splits, rows = split_plan(c, 1, 128, 2048, sm_count=132)
    assert splits > 1
    assert (splits, rows) == (64, 32)  # 2 CTAs per token want 66 splits; 64 tiles of 32 rows cap it
    # 16 CTAs want 132 // 16 = 8 splits of 256 rows
    assert split_plan(c, 8, 128, 2048, sm_count=132) == (8, 256)
    # 128 CTAs fill 128 of 132 SMs: a second split would start a second wave
    assert split_plan(c, 64, 128, 2048, sm_count=132) == (1, 2048)
    # 12 CTAs: 11 splits of 187 rows, in whole 32-row tiles 192 rows, so 11 splits
    assert split_plan(c, 6, 128, 2048, sm_count=132) == (11, 192)
    assert split_plan(c, 1, 128, 2048, sm_count=1) == (1, 2048)  # one SM: nothing to fill
    assert split_plan(contract(4), 1, 128, 2048, sm_count=132) == (4, 512)
    # a value split doubles the CTAs of a split: the seesaw's 64-row pairs at B=1, 32 splits either
    # way (4 CTAs a split want 33); at B=8, 4 splits where one CTA a split took 8
    halves = LaunchContract("split", "combine", 64, 384, 64, "auto", "separate", "bf16", 1024, value_split=2)
    assert split_plan(halves, 1, 128, 2048, sm_count=132) == (32, 64)
    assert split_plan(halves, 8, 128, 2048, sm_count=132) == (4, 512)
    assert split_plan(dataclasses.replace(halves, value_split=1), 8, 128, 2048, sm_count=132) == (8, 256)


def test_the_siblings_merge_keeps_its_grid_in_one_wave():
    c = contract("auto", topk_tile=64, combine="siblings")
    assert split_plan(c, 8, 128, 2048, sm_count=132) == (8, 256)  # auto is one wave already
    assert split_plan(c, 1, 128, 2048, sm_count=132) == (32, 64)
    # 32-row steps: 66 splits fit in the wave at B=1, but the merge holds at most 32 splits' loads
    # in flight a thread (beyond, its fallback takes several round trips), so 32 of two tiles
    tiles32 = contract("auto", topk_tile=32, combine="siblings")
    assert split_plan(tiles32, 1, 128, 2048, sm_count=132) == (32, 64)
    assert split_plan(contract(64, topk_tile=32, combine="siblings"), 1, 128, 4096, sm_count=132) == (32, 128)
    # asked for 32 splits at B=8 (512 CTAs): the waiting CTAs would hold the SMs their siblings
    # need, so the launcher gives the 8 that fit; a device holding two CTAs an SM gets 16
    fixed = contract(32, topk_tile=64, combine="siblings")
    assert split_plan(fixed, 8, 128, 2048, sm_count=132) == (8, 256)
    assert split_plan(fixed, 8, 128, 2048, sm_count=132, resident_ctas=264) == (16, 128)
    assert split_plan(fixed, 128, 128, 2048, sm_count=132) == (1, 2048)  # no room for a second split
    # the separate merge has no such limit
    assert split_plan(contract(32, topk_tile=64), 8, 128, 2048, sm_count=132) == (32, 64)


def test_the_scorers_splits_of_whole_tiles_use_more_sms_and_merge_every_count_they_make():
    pairs_genes = GENOMES["scorer_bf16_siblings_pdl"]
    tiles_genes = GENOMES["scorer_bf16_siblings_tile_splits"]
    pairs, tiles = parse_contract(render(pairs_genes)), parse_contract(render(tiles_genes))
    assert (pairs.topk_tile, tiles.topk_tile) == (64, 32)

    def plan(c, batch):
        return split_plan(c, batch, 128, 2048, sm_count=132)

    # where a pair is too coarse a step, the one-wave cap keeps more SMs busy
    assert plan(pairs, 5) == (11, 192) and plan(tiles, 5) == (13, 160)
    assert plan(pairs, 3) == (16, 128) and plan(tiles, 3) == (22, 96)
    # ... and elsewhere the plan is the same: at B=1 the siblings' merge takes at most 32 splits
    # (64 of one tile each would take the merge's slow fallback)
    for batch in (1, 2, 4, 6, 7, 8, 16, 32, 64):
        assert plan(pairs, batch) == plan(tiles, batch), batch
    assert plan(tiles, 1) == (32, 64)
    # the new counts go to merge_range (each thread holds all splits in flight) rather than the
    # item-range fallback, in the tile genome only
    assert {13, 22} <= merge_dispatch(render(tiles_genes)).keys()
    assert not {13, 22} & merge_dispatch(render(pairs_genes)).keys()
    # the scorer takes an odd last tile alone; the value warpgroups gather and accumulate exactly
    # the tiles it scores (a pair's missing tile, gathered as invalid rows, only in pair splits)
    source = render(tiles_genes)
    assert "for (int j = 0; j < n_tiles / 2; ++j) {" in source and "if (n_tiles & 1) {" in source
    assert "const int n_scored = n_tiles;" in source
    assert "const int n_scored = 2 * n_iter;" in render(pairs_genes)
    # splits of whole tiles are written for the scorer alone
    lockstep = {k: v for k, v in tiles_genes.items() if k != "SCHEDULE"}
    assert not SPACE.is_valid({**SPACE.default_params(), **lockstep})


@pytest.mark.parametrize("name", sorted(n for n, g in GENOMES.items() if g["COMBINE"] == "siblings"))
def test_the_scoring_warpgroup_joins_exactly_merge_ranges_split_counts(name):
    # The scorer's warpgroup takes part in the siblings' wait (a 384-thread barrier) and merge only
    # for the counts merge_range takes: merged_by_range must name exactly the dispatch's cases, or a
    # count would wait on a barrier one warpgroup never reaches (a hang) or merge with a stride of
    # 384 over 256 threads (a third of the share never written)
    source = render(GENOMES[name])
    dispatch = merge_dispatch(source)
    cases = {n for n, merge in dispatch.items() if merge == "range"}
    body = source[source.index("bool merged_by_range(int s) {"):]
    named = {int(n) for n in re.findall(r"s == (\d+)", body[:body.index("\n}")])}
    assert cases and named == cases and "none" not in dispatch.values(), (cases, named, dispatch)
    scorer = GENOMES[name].get("SCHEDULE") == "scorer"
    assert f"constexpr int MERGE_THREADS = {384 if scorer else 256};" in source
    # decided when the entry is compiled: its count's merge, or (ONLY_S = 0) none with the scorer
    assert ("if constexpr (MERGE_THREADS == 384 && merged_by_range(ONLY_S))  // (ONLY_S: this entry's count, > 1)\n"
            "      merge_with_siblings<ONLY_S>(" in source) == scorer


@pytest.mark.parametrize("name", sorted(n for n, g in GENOMES.items() if g["COMBINE"] == "siblings"))
def test_the_siblings_merge_waits_on_release_and_acquire_in_the_launchers_line(name):
    source = render(GENOMES[name])
    # one 128-byte line of words a group: the stride the launcher allocates
    assert f"constexpr int SIBLING_WORDS = {SIBLING_WORDS};" in source and SIBLING_WORDS * 4 == 128
    wait = source[source.index("int wait_for_siblings("):]
    wait = wait[:wait.index("\n}\n")]
    # a release reduction and acquire loads order the partials: a sequentially consistent fence
    # (__threadfence, MEMBAR.SC.GPU) in the wait made B=8 a microsecond slower on the H200
    assert "red.release.gpu.global.add.s32" in source and "ld.acquire.gpu.global.b32" in source
    assert "__threadfence" not in wait and "add_release(count, 1);" in wait
    # every epilogue of the genome ends in the merge, after its stores
    assert source.count("merge_with_siblings<ONLY_S>(part_out, part_lse, out, lse, arrivals, b,") >= 1
    # a thread weighs its own head's splits: no barrier between the wait and the merged stores
    for fn in ("void merge_share(", "void merge_range("):
        share = source[source.index(fn):]
        share = share[:share.index("\n}\n")]
        assert "sync" not in share and "__syncthreads" not in share and "part_lse + row" in share, fn
    # every split count above one the launcher gives this genome on an H200 (132 SMs, B up to 64)
    # launches an entry of its own: merge_share for powers of two, merge_range (one round trip) for
    # the others, none the item-range fallback
    c = parse_contract(source)
    counts = {split_plan(c, b, 128, 2048, sm_count=132)[0] for b in range(1, 65)} - {1}
    odd = sorted(n for n in counts if n & (n - 1))
    assert odd, counts
    dispatch = merge_dispatch(source)
    assert dict(c.split_kernels) == {n: f"sparse_mla_decode_split_s{n}" for n in dispatch}
    for n in counts:
        assert c.split_kernel_for(n) == f"sparse_mla_decode_split_s{n}"
        assert dispatch[n] == ("range" if n in odd else "share"), (n, dispatch)


def test_the_split_grid_and_partial_buffers_follow_the_launch_line():
    import torch

    c = LaunchContract("split", "combine", 64, 384, 32, "auto", "separate", "bf16", 1024)
    assert split_grid(c, 128, 8, 3) == (2, 8, 3)
    halves = dataclasses.replace(c, value_split=2, partials="bf16")
    assert split_grid(halves, 128, 8, 3) == (4, 8, 3)  # two CTAs a head block, each with half the columns
    for contract, dtype in ((c, torch.float32), (halves, torch.bfloat16)):
        part_out, part_lse = partial_buffers(contract, 3, 8, 128, "cpu")
        assert part_out.shape == (3, 8, 128, 512) and part_out.dtype == dtype
        assert part_lse.shape == (3, 8, 128) and part_lse.dtype == torch.float32


def test_a_genome_without_the_query_tensor_map_gets_no_extra_argument_and_one_with_it_refuses_a_misaligned_q():
    import torch

    c = LaunchContract("split", "combine", 64, 384, 32, "auto", "separate", "bf16", 1024)
    flat = torch.randn(128 * 576 + 1).to(torch.bfloat16)
    misaligned = flat[1:].view(1, 128, 576)  # contiguous, 2 bytes past a 16-byte boundary
    assert query_map_arguments(c, misaligned) == ()
    with pytest.raises(ValueError, match="tensor map, which needs a 16-byte-aligned start"):
        query_map_arguments(dataclasses.replace(c, q_tma=True), misaligned)


@pytest.mark.parametrize("num_splits", ["auto", 2, 4, 8, 16])
@pytest.mark.parametrize("batch, heads, topk", [(1, 128, 2048), (8, 128, 2048), (3, 128, 2048), (64, 128, 2048),
                                                (1, 64, 100), (2, 128, 33), (1, 128, 150)])
def test_a_cluster_merge_gets_a_power_of_two_splits_that_cover_the_list(num_splits, batch, heads, topk):
    splits, rows = split_plan(contract(num_splits, topk_tile=64, combine="cluster"), batch, heads, topk, sm_count=132)
    assert splits & (splits - 1) == 0 and 1 <= splits <= 16  # the kernel divides the 64 heads among them
    assert rows % 64 == 0 and splits * rows >= topk
    assert splits <= (8 if num_splits == "auto" else num_splits)


def test_auto_cluster_splits_stay_portable_and_in_one_wave():
    c = contract("auto", topk_tile=64, combine="cluster")
    assert split_plan(c, 1, 128, 2048, sm_count=132) == (8, 256)    # 66 wanted, 8 the portable cluster
    assert split_plan(c, 8, 128, 2048, sm_count=132) == (8, 256)    # 16 clusters of 8 on 132 SMs
    assert split_plan(c, 16, 128, 2048, sm_count=132) == (4, 512)   # 132 // 32 = 4
    assert split_plan(c, 12, 128, 2048, sm_count=132) == (4, 512)   # 5 wanted, rounded down to 4
    assert split_plan(c, 64, 128, 2048, sm_count=132) == (1, 2048)
    # a device that holds only 14 clusters of 8 (16 wanted at B=8) gets 16 clusters of 4
    capacity = {8: 14, 4: 30, 2: 66}.__getitem__
    assert split_plan(c, 8, 128, 2048, sm_count=132, cluster_capacity=capacity) == (4, 512)
    assert split_plan(c, 1, 128, 2048, sm_count=132, cluster_capacity=capacity) == (8, 256)  # 2 of 14
    assert split_plan(c, 8, 128, 2048, sm_count=132, cluster_capacity=lambda s: 0) == (1, 2048)
    # 300 rows in tiles of 64: 4 splits of 128 rows, the last one empty (it weighs 0 in the merge)
    assert split_plan(contract(4, topk_tile=64, combine="cluster"), 1, 128, 300, sm_count=132) == (4, 128)


def test_a_source_without_a_usable_launch_line_is_a_contract_error():
    source = render(GENOMES["bf16_hpw16_separate_s3_auto"])
    line = next(l for l in source.splitlines() if "kernel-genome-launch" in l)
    with pytest.raises(ContractError, match="no '// kernel-genome-launch"):
        parse_contract(source.replace(line, "// launch line removed"))
    with pytest.raises(ContractError, match="malformed"):
        parse_contract(source.replace(line, line.replace('"smem_bytes"', "smem_bytes")))  # not JSON
    with pytest.raises(ContractError, match="malformed"):
        parse_contract(source.replace(line, line.replace('"threads"', '"block_threads"')))  # unknown field
    for field, bad, message in [  # one field of the line made wrong, and what the error must name
        ('"kv_format": "bf16"', '"kv_format": "nvfp4"', "kv_format"),
        ('"num_splits": "auto"', '"num_splits": 0', "num_splits"),
        ('"partials": "fp32"', '"partials": "fp16"', "partials 'fp16'"),
        ('"pdl": true', '"pdl": 1', "pdl 1 is not true or false"),
        ('"q_tma": false', '"q_tma": "yes"', "q_tma 'yes' is not true or false"),
        ('"value_split": 1', '"value_split": 4', "value_split 4 is not 1 or 2"),
        ('"split_kernels": {}', '"split_kernels": {"one": "k"}', "split_kernels entry 'one'"),
        ('"split_kernels": {}', '"split_kernels": {"8": "not a name"}', "split_kernels entry '8'"),
        ('"split_kernels": {}', '"split_kernels": ["k"]', "split_kernels .* is not an object"),
    ]:
        assert line.count(field) == 1, field
        with pytest.raises(ContractError, match=message):
            parse_contract(source.replace(line, line.replace(field, bad)))
    for bad in (100, 2048):  # not whole groups of 128; beyond a CTA
        with pytest.raises(ContractError, match=f"combine_threads_max {bad} "):
            parse_contract(source.replace(line, line.replace('"combine_threads_max": 512', f'"combine_threads_max": {bad}')))


def test_the_combine_kernel_takes_a_group_of_128_threads_per_8_splits_up_to_its_limit():
    c = parse_contract(render(GENOMES["bf16_hpw16_separate_s3_auto"]))
    assert [combine_threads(c, s) for s in (2, 8, 15, 16, 24, 32, 64)] == [128, 128, 128, 256, 384, 512, 512]
    # a launch line without the field (an older template) gets the one-group kernel it was written for
    old = LaunchContract(**{k: v for k, v in c.__dict__.items() if k != "combine_threads_max"})
    assert combine_threads(old, 64) == 128


# -- the harness in a real worker process on the CPU --------------------------------------------
@pytest.fixture(scope="module")
def cpu_worker(module_worker):
    return module_worker("cpu", timeout_s=120)


def request(source: str, genes: dict) -> dict:
    return TEMPLATE.request(source, params_of(genes), seed=1)


def inside_split_kernel(source: str, statement: str) -> str:
    """``statement`` as the first line of the split kernel's body."""
    anchor = "  using namespace kg;\n"
    assert source.count(anchor) == 1
    return source.replace(anchor, anchor + f"  {statement}\n")


def test_worker_types_an_uncompilable_genome_as_compile_error_with_nvcc_message(cpu_worker):
    genes = GENOMES["fp8_hpw16_separate_s3_auto"]
    reply = cpu_worker.evaluate(request(inside_split_kernel(render(genes), "this_does_not_compile;"), genes))
    assert reply["status"] == "compile_error" and reply["stage"] == "compile", reply
    assert "this_does_not_compile" in reply["error"] and "error" in reply["error"]
    assert reply["resources"]["registers"] is None  # nothing was built


def test_worker_builds_a_valid_genome_then_says_it_needs_a_gpu(cpu_worker):
    genes = GENOMES["wgmma_fp8_fused_s1_8splits"]  # an fp8_656 problem: its pool is never made
    reply = cpu_worker.evaluate(request(render(genes), genes))
    assert reply["status"] == "runtime_error" and reply["stage"] == "compile", reply
    assert "CUDA kernel runs only on a GPU" in reply["error"] and "engine compile" in reply["error"]
    resources = reply["resources"]  # it compiled: ptxas' figures are in the record
    assert 64 <= resources["registers"] <= 255 and resources["spill_bytes"] == 0 and resources["code_bytes"] > 0
    assert reply["compiler_notes"] == []  # and what nvcc said besides: nothing


def test_worker_rejects_a_kernel_that_prints_before_compiling_it(cpu_worker):
    genes = GENOMES["bf16_hpw16_separate_s3_auto"]
    reply = cpu_worker.evaluate(request(inside_split_kernel(render(genes), 'printf("%d\\n", topk);'), genes))
    assert reply["status"] == "rejected_static" and reply["stage"] == "static", reply
    assert "printf" in reply["error"]
    line = int(re.search(r"line (\d+)", reply["error"]).group(1))
    assert "printf" in inside_split_kernel(render(genes), 'printf("%d\\n", topk);').splitlines()[line - 1]
    assert "resources" not in reply  # rejected before nvcc ran


def test_worker_refuses_an_unknown_cache_format_as_an_invalid_genome(cpu_worker):
    genes = GENOMES["bf16_hpw16_separate_s3_auto"]
    reply = cpu_worker.evaluate({**request(render(genes), genes), "problem_args": {"kv_format": "nvfp4"}})
    assert reply["status"] == "invalid_genome" and "nvfp4" in reply["error"], reply


# -- the command line -----------------------------------------------------------------------------
def run_cli(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=300)


def assert_one_line_error(proc: subprocess.CompletedProcess, *words: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("engine: error: "), proc.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def test_engine_compile_builds_an_fp8_genome_of_the_real_template(tmp_path):
    done = run_cli("compile", TEMPLATE_REL, "--genome", '{"KV_FORMAT": "fp8_656"}', "--cache", tmp_path)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["status"] == "ok" and figures["error"] is None and figures["arch"] == "sm_90a"
    assert figures["params"]["KV_FORMAT"] == "fp8_656" and figures["spill_bytes"] == 0
    assert {k["name"] for k in figures["kernels"]} == {"sparse_mla_decode_split", "sparse_mla_decode_combine"}
    assert Path(figures["cubin"]).is_file() and Path(figures["cubin"]).is_relative_to(tmp_path)


def test_evolve_of_a_cuda_template_without_a_gpu_is_one_line_pointing_at_compile(tmp_path):
    done = run_cli("evolve", TEMPLATE_REL, "--budget", "2", "--device", "cpu", "--out", tmp_path / "run")
    line = assert_one_line_error(done, "GPU", "engine compile")
    assert TEMPLATE_REL in line
    assert not list((tmp_path / "run").rglob("*.parquet"))  # nothing was evaluated


def test_a_refused_cuda_evolve_leaves_no_run_folder_behind(tmp_path):
    out = tmp_path / "run"
    first = run_cli("evolve", TEMPLATE_REL, "--budget", "2", "--device", "cpu", "--out", out)
    assert_one_line_error(first, "GPU")
    assert not out.exists() or not any(out.iterdir()), sorted(p.name for p in out.iterdir())


SEESAW_SHAPES = [(fmt, rows, lanes) for fmt in ("bf16", "fp8_656") for rows in (32, 64) for lanes in (1, 2, 4, 8)
                 if lanes * 2 * rows >= 128]


@pytest.fixture(scope="module")
def seesaw_builds(module_sources, compiler):
    """Every shape of the seesaw kernel (cache format x tile rows x gather lanes), built by nvcc."""
    return {shape: compiler.result(source) for shape, source in module_sources["seesaw"].items()}


@pytest.mark.parametrize("shape", SEESAW_SHAPES, ids=lambda s: f"{s[0]}-{s[1]}rows-{s[2]}lanes")
def test_every_seesaw_shape_fits_its_register_split_without_spilling(seesaw_builds, shape):
    # the producer warpgroup runs on 56 (bf16) or 80 (FP8) registers after setmaxnreg and the
    # compute ones on 224 or 208: ptxas spills, rather than fails, when a change outgrows either
    build = seesaw_builds[shape]
    assert build.ok, build.log[-3000:]
    split = {k.name: k for k in build.kernels}["sparse_mla_decode_split"]
    assert split.spill_store_bytes == 0 and split.spill_load_bytes == 0 and split.stack_bytes == 0, build.log
    assert split.registers == 168  # __launch_bounds__(384, 1): 65536 / 384, rounded down to 8


def _trace_script():
    return load_device_script("trace_seesaw.py")


def _timeline_script():
    return load_device_script("trace_timeline.py")


HELD = dict(VALUE_ISSUE="after_scores", FIRST_GATHER="pair_first", SPLIT_STEP="tile")
SCORER = dict(MMA="wgmma", PIPELINE="seesaw", SCHEDULE="scorer", STAGES=2, Q_LOAD="tma", TOPK_TILE=32, GATHER_LANES=8,
              PARTIALS="bf16", PDL=True)
TIMELINE_CASES = [("threads", "separate", {}), ("bulk", "separate", {}), ("threads", "siblings", {}),
                  ("threads", "siblings", HELD)]
TILE_CASES = {"at_p": {}, "held": HELD,
              "fp8_at_p": {"KV_FORMAT": "fp8_656", "SPLIT_STEP": "tile", "FIRST_GATHER": "pair_first"},
              "fp8_adaptive": {"KV_FORMAT": "fp8_656", "SPLIT_STEP": "tile", "FIRST_GATHER": "pair_first",
                               "PAIRING": "adaptive"}}
SEESAW_FORMATS = ["bf16", "fp8_656"]
# what a probe script raises on an anchor the template moved (SystemExit: it exits naming the anchor)
PROBE_FAILURES = (Exception, SystemExit)


def _probed_sources() -> dict:
    """Each probe test's source as its device script instruments it: key -> text, or the exception
    the instrumentation raised (an anchor the template moved), which the test then raises itself."""
    # each maker loads its script itself: a script that fails to load then fails only its own tests
    makers = {}
    for i, (row_store, combine, extra) in enumerate(TIMELINE_CASES):
        makers["timeline", i] = lambda row_store=row_store, combine=combine, extra=extra: _timeline_script().instrument(
            render(dict(SCORER, ROW_STORE=row_store, COMBINE=combine, **extra)), combine=combine)
    for name, extra in TILE_CASES.items():
        makers["tiles", name] = lambda extra=extra: load_device_script("trace_scorer_tiles.py").instrument(
            render(dict(SCORER, COMBINE="siblings", **extra)), kv_format=extra.get("KV_FORMAT", "bf16"),
            pairing=extra.get("PAIRING", "fixed"))
    for kv_format in SEESAW_FORMATS:
        makers["seesaw", kv_format] = lambda kv_format=kv_format: _trace_script().instrument(
            render(dict(MMA="wgmma", PIPELINE="seesaw", STAGES=2, TOPK_TILE=32, GATHER_LANES=8, KV_FORMAT=kv_format)))
    out = {}
    for key, make in makers.items():
        try:
            out[key] = make()
        except PROBE_FAILURES as exc:  # re-raised by the test of that key
            out[key] = exc
    return out


@pytest.fixture(scope="module")
def probe_builds(module_sources, compiler):
    """The probe tests' instrumented sources, built in the module's pool (one after the other, in
    each test, they took about a minute): key -> (traced source, build), or the instrumentation's
    exception."""
    return {key: text if not isinstance(text, str) else (text, compiler.result(text))
            for key, text in module_sources["probed"].items()}


def _probed(probe_builds, key) -> tuple:
    found = probe_builds[key]
    if isinstance(found, PROBE_FAILURES):
        raise found
    return found


@pytest.mark.parametrize("case", range(len(TIMELINE_CASES)),
                         ids=[f"{r}-{c}-extra{i}" for i, (r, c, _) in enumerate(TIMELINE_CASES)])
def test_the_timeline_probes_find_every_event_of_a_scorer_genome_and_build(probe_builds, case):
    # scripts/device/trace_timeline.py places its stamps by the rendered text of the scorer, of the
    # combine kernel and of the siblings' wait: a template change that moves an anchor must fail
    # here, not on the GPU
    combine = TIMELINE_CASES[case][1]
    script = _timeline_script()
    traced, build = _probed(probe_builds, ("timeline", case))
    n = len(script.MAIN_EVENTS)
    own = [*range(8), script.MAIN_EVENTS.index("released")]  # the kernel's own events, then blockIdx
    assert all(f"kg_ev[{e}] =" in traced for e in [*own, n])
    siblings_events = [f"kg_tl_main[(size_t)kg_slot * {n + 1} + {e}] = kg_now();" for e in (8, 9)]
    assert all((e in traced) == (combine == "siblings") for e in siblings_events)
    assert traced.count("kg_tl_merge[(size_t)s *") == (len(script.MERGE_EVENTS) if combine == "separate" else 0)
    assert build.ok, build.log[-3000:]
    assert {k.name for k in build.kernels} >= {"sparse_mla_decode_split", "sparse_mla_decode_combine", "kg_tl_read"}
    split = {k.name: k for k in build.kernels}["sparse_mla_decode_split"]
    assert split.spill_store_bytes == 0 and split.registers == 168, build.log


@pytest.mark.parametrize("case", sorted(TILE_CASES))
def test_the_scorer_tile_probes_find_every_event_and_build(probe_builds, case):
    # scripts/device/trace_scorer_tiles.py places its stamps by the rendered text of the scorer's
    # and the value warpgroups' loops: an anchor the template moved must fail here, not on the GPU
    # (FP8: the value threads' dequantization of each tile v is stamped as well, and only there;
    # adaptive pairs: a pair's scores and P on its unpaired path as well as on its paired one)
    script = load_device_script("trace_scorer_tiles.py")
    traced, build = _probed(probe_builds, ("tiles", case))
    fp8 = TILE_CASES[case].get("KV_FORMAT") == "fp8_656"
    paths = 2 if TILE_CASES[case].get("PAIRING") == "adaptive" else 1
    for name in ("scores_done", "p_published"):
        for tile in ("2 * j", "2 * j + 1"):
            assert traced.count(f"kg_stamp({tile}, {script.ev(name)})") == paths, (name, tile)
    for e, name in enumerate(script.EVENTS, start=1):
        if name in script.FP8_EVENTS:
            assert (f"kg_stamp(v, {e})" in traced) == fp8, name
        else:
            assert f"kg_stamp(t, {e})" in traced or f"kg_stamp(2 * j, {e})" in traced, name
    assert build.ok, build.log[-3000:]
    split = {k.name: k for k in build.kernels}["sparse_mla_decode_split"]
    assert "kg_tiles_read" in {k.name for k in build.kernels}
    assert split.spill_store_bytes == 0 and split.registers == 168, build.log


def test_the_scorer_tile_gaps_are_taken_between_the_right_stamps():
    import torch

    # two CTAs, a pair of tiles: stamps 100 cycles apart in event order, tile 1 500 cycles after
    # tile 0, the CTAs' first instruction at 1000 (the second CTA's tiles 40 cycles later)
    script = load_device_script("trace_scorer_tiles.py")
    stamps = torch.zeros(script.MAX_CTAS * script.MAX_TILES * script.NE, dtype=torch.int64)
    view = stamps.view(script.MAX_CTAS, script.MAX_TILES, script.NE)
    for cta in range(2):
        view[cta, 0, 0] = 1000
        for t in range(2):
            for i, event in enumerate(script.EVENTS):
                view[cta, t, script.ev(event)] = 2000 + 500 * t + 40 * cta + 100 * i
    tiles = script.per_tile(stamps, ctas=2)
    assert len(tiles) == 2  # no CTA stamped tile 2
    assert tiles[0]["rows_in"] == 1020 and tiles[1]["v1_done"] == 1520 + 100 * script.EVENTS.index("v1_done")
    assert tiles[0]["gaps"] == {"rows_wait": 1020, "scores": 100, "softmax": 100, "p_to_value": 100, "values": 200}
    assert "rows_wait" not in tiles[1]["gaps"]  # the second tile's rows are waited for under the first's scores
    # a tile the scorer did not stamp (a lone last tile): no gap from its missing stamps
    view[:, 1, script.ev("scores_done")] = 0
    view[:, 1, script.ev("p_published")] = 0
    gaps = script.per_tile(stamps, ctas=2)[1]["gaps"]
    assert set(gaps) == {"values"} and gaps["values"] == 200


def test_the_timeline_refuses_a_genome_it_has_no_probes_for(tmp_path):
    script = _timeline_script()
    variants = tmp_path / "v.json"
    variants.write_text('{"pingpong": {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "pingpong", '
                        '"TOPK_TILE": 32, "Q_LOAD": "tma"}}')
    with pytest.raises(SystemExit, match="pingpong.*SCHEDULE = pingpong"):
        script.main([str(variants)])


@pytest.mark.parametrize("kv_format", SEESAW_FORMATS)
def test_the_seesaw_trace_probes_still_find_every_phase_and_build(probe_builds, kv_format):
    # scripts/device/trace_seesaw.py instruments the rendered kernel by its text: a template
    # change that moves an anchor must fail here, not leave a phase silently at zero on the GPU
    traced, build = _probed(probe_builds, ("seesaw", kv_format))
    assert traced.count("kgp[") == 6 and traced.count("kgc[") == 13  # every probe of both warpgroup kinds
    assert build.ok, build.log[-3000:]


ACCURATE_MATH = re.compile(r"(?<![\w.])(expf|logf|log2f|exp10f|powf)\(|\b1\.f / ")


@pytest.mark.parametrize("name", sorted(n for n, g in GENOMES.items() if g.get("COMBINE") != "cluster"))
def test_merges_and_epilogues_take_the_hardwares_approximations(name):
    # The accurate exp, log and division compile to a slow path behind a branch a call; a merging
    # thread takes one a split (H200, 16 calls in a graph: B=1 and B=5 0.8-0.9 us a call slower,
    # docs/BENCHMARKS.md, twenty-first session). Their few ulp are far below the bf16 outputs'.
    source = render(GENOMES[name])
    found = sorted({m.group(0) for m in ACCURATE_MATH.finditer(source)})
    assert not found, f"{name}: accurate math in the rendered source: {found}"
    assert "__expf(" in source and "__fdividef(1.f, " in source


@pytest.mark.parametrize("name", sorted(n for n, g in GENOMES.items() if g.get("PIPELINE") == "seesaw"))
def test_seesaw_tile_softmax_takes_one_mufu_exponential(name):
    # exp2f keeps denormal results: a compare and two multiplies around each MUFU.EX2, on the path
    # from a tile's scores to its P. ex2.approx.ftz is the MUFU alone (with the quad's shuffles behind
    # a vote and trees for the maxima and sums: B=7-8 0.2-0.3 us and B=64 1.2-1.7 us faster on the H200,
    # 16 calls in a graph, docs/BENCHMARKS.md, thirty-third session).
    source = render(GENOMES[name])
    assert "ex2.approx.ftz.f32" in source
    assert "= ex2_ftz(s[j * 4 + 0] - m_use[0])" in source and "exp2f(s[" not in source


def test_the_accurate_math_pattern_tells_the_functions_apart():
    assert ACCURATE_MATH.search("w = expf(l - m);") and ACCURATE_MATH.search("x = 1.f / l;")
    assert ACCURATE_MATH.search("m + logf(d)") and ACCURATE_MATH.search("(m + log2f(l))")
    for fast in ("w = __expf(l - m);", "p = exp2f(s);", "m + __logf(d)", "__log2f(l)", "__fdividef(1.f, l)"):
        assert not ACCURATE_MATH.search(fast), fast
