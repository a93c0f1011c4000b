"""GPU tier: the CUDA template end to end through a real worker (nvcc -> cubin -> cuda.core
launch on torch's stream, captured in a CUDA graph, verified and timed); a CUDA candidate that
writes out of bounds (illegal_address) and one that never ends its first launch (timeout of its
first call): the worker restarted, the next candidate runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.template import load_template

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = load_template(REPO / "templates" / "sparse_mla.cu.j2")
SPACE = TEMPLATE.load_space()


def request(params: dict, source: str | None = None, bench: bool = True) -> dict:
    full = {**SPACE.default_params(), **params}
    assert SPACE.is_valid(full), SPACE.violations(full)
    return TEMPLATE.request(source or TEMPLATE.render(full), full, bench=bench)


@pytest.fixture(scope="module")
def runner(module_worker):
    return module_worker("cuda", timeout_s=300)


@pytest.mark.gpu
@pytest.mark.parametrize("genes", [
    {},
    {"KV_FORMAT": "fp8_656", "NUM_SPLITS": 4, "COMBINE": "fused"},
    {"MMA": "wgmma", "TOPK_TILE": 64, "STAGES": 2},
    {"MMA": "wgmma", "TOPK_TILE": 64, "STAGES": 1, "KV_FORMAT": "fp8_656", "PIPELINE": "overlap"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8},
    # 32 splits of one 64-row tile each: every pair's second tile is the padding of invalid rows
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 64, "STAGES": 2, "GATHER_LANES": 2, "NUM_SPLITS": 32},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8, "KV_FORMAT": "fp8_656",
     "NUM_SPLITS": 4, "COMBINE": "fused", "L2_PREFETCH": 2},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8, "COMBINE": "cluster"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8, "PARTIALS": "bf16"},
    {"KV_FORMAT": "fp8_656", "NUM_SPLITS": 4, "COMBINE": "fused", "PARTIALS": "bf16"},
    # a dependent combine launch; 64 splits at B=1 (four groups of 16: two batches of loads),
    # 22 at B=3 (two groups of 11: a batch and a remainder)
    {"PDL": True},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8, "PARTIALS": "bf16",
     "PDL": True},
    # a value split: 128 CTAs at B=1, half the value columns each; FP8 with 64-row tiles
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8, "PARTIALS": "bf16",
     "PDL": True, "VALUE_SPLIT": 2},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 64, "STAGES": 2, "GATHER_LANES": 4, "KV_FORMAT": "fp8_656",
     "VALUE_SPLIT": 2},
    # arrival groups: with a value split, with the cluster merge, on FP8 (queries only) and on
    # 64-row tiles whose second tile is padding
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8, "PARTIALS": "bf16",
     "PDL": True, "ARRIVAL_GROUPS": 3, "VALUE_SPLIT": 2},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 4, "COMBINE": "cluster",
     "ARRIVAL_GROUPS": 9},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8, "KV_FORMAT": "fp8_656",
     "NUM_SPLITS": 4, "COMBINE": "fused", "ARRIVAL_GROUPS": 3},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 64, "STAGES": 2, "GATHER_LANES": 2, "NUM_SPLITS": 32,
     "ARRIVAL_GROUPS": 9},
    # the queries through the copy engine (a tensor map passed by value): with PDL and arrival
    # groups, with a value split, as clusters (a cluster launch through the driver), on FP8
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8, "PARTIALS": "bf16",
     "PDL": True, "Q_LOAD": "tma", "ARRIVAL_GROUPS": 3},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 64, "STAGES": 2, "GATHER_LANES": 8, "PARTIALS": "bf16",
     "PDL": True, "Q_LOAD": "tma", "VALUE_SPLIT": 2, "L2_PREFETCH": 8},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8, "COMBINE": "cluster",
     "Q_LOAD": "tma"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8, "KV_FORMAT": "fp8_656",
     "NUM_SPLITS": 4, "COMBINE": "fused", "Q_LOAD": "tma", "ARRIVAL_GROUPS": 9},
    # rows written by the copy engine from shared memory: bf16 and fp32 partials, the output of one
    # split (B >= 64), value halves (half a row a copy), FP8
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8, "PARTIALS": "bf16",
     "PDL": True, "Q_LOAD": "tma", "ROW_STORE": "bulk"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8, "ROW_STORE": "bulk"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 64, "STAGES": 2, "GATHER_LANES": 8, "PARTIALS": "bf16",
     "PDL": True, "Q_LOAD": "tma", "VALUE_SPLIT": 2, "ROW_STORE": "bulk"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8, "KV_FORMAT": "fp8_656",
     "PARTIALS": "bf16", "PDL": True, "Q_LOAD": "tma", "ROW_STORE": "bulk"},
    # pingpong: the running maximum passed from tile to tile between the warpgroups; with the
    # queries through the copy engine and PDL, fused, one split with bulk rows, and 32 splits of
    # one tile a warpgroup (each warpgroup's last products are its first)
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "pingpong", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8,
     "PARTIALS": "bf16", "PDL": True, "Q_LOAD": "tma", "ARRIVAL_GROUPS": 3},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "pingpong", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 4,
     "NUM_SPLITS": 4, "COMBINE": "fused", "ARRIVAL_GROUPS": 9},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "pingpong", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8,
     "NUM_SPLITS": 1, "Q_LOAD": "tma", "ROW_STORE": "bulk"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "pingpong", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8,
     "NUM_SPLITS": 32, "PARTIALS": "bf16"},
    # pingpong on two 64-row buffers: with bulk rows, fused, and 32 splits of one 64-row tile (the
    # second warpgroup's tile is padding)
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "pingpong", "TOPK_TILE": 64, "STAGES": 2, "GATHER_LANES": 8,
     "Q_LOAD": "tma", "ARRIVAL_GROUPS": 3, "ROW_STORE": "bulk"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "pingpong", "TOPK_TILE": 64, "STAGES": 2, "GATHER_LANES": 4,
     "NUM_SPLITS": 8, "COMBINE": "fused", "ARRIVAL_GROUPS": 9, "PARTIALS": "bf16"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "pingpong", "TOPK_TILE": 64, "STAGES": 2, "GATHER_LANES": 2,
     "NUM_SPLITS": 32, "PARTIALS": "bf16", "PDL": True},
    # scorer: most of the queries in the scoring warpgroup's registers, the rows gathered by the
    # value warpgroups into five tile buffers (one where the queries' first blocks were, once they
    # are in registers): auto splits with PDL, one split with bulk rows (the ring goes round many
    # times), fused over four splits, and 32 splits of two tiles (the queries' buffer is never used)
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "scorer", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8,
     "PARTIALS": "bf16", "PDL": True, "Q_LOAD": "tma"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "scorer", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8,
     "NUM_SPLITS": 1, "Q_LOAD": "tma", "ROW_STORE": "bulk"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "scorer", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8,
     "NUM_SPLITS": 4, "COMBINE": "fused", "Q_LOAD": "tma"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "scorer", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8,
     "NUM_SPLITS": 32, "PARTIALS": "bf16", "Q_LOAD": "tma"},
    # rows staged by each warp (stmatrix) and stored in whole lines: the scorer's bf16 partials with
    # PDL (the output itself at B >= 64), one split (the output at every batch), value halves on
    # 64-row tiles (128 columns a warpgroup), pingpong's 32 splits
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "scorer", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8,
     "PARTIALS": "bf16", "PDL": True, "Q_LOAD": "tma", "ROW_STORE": "staged"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "scorer", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8,
     "NUM_SPLITS": 1, "PARTIALS": "bf16", "Q_LOAD": "tma", "ROW_STORE": "staged"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 64, "STAGES": 2, "GATHER_LANES": 8, "PARTIALS": "bf16",
     "PDL": True, "Q_LOAD": "tma", "VALUE_SPLIT": 2, "ROW_STORE": "staged"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "pingpong", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8,
     "NUM_SPLITS": 32, "PARTIALS": "bf16", "ROW_STORE": "staged"},
    # the siblings' merge in the split kernel (each split CTA merges a share of its head block once
    # all have stored): the scorer with PDL, FP8 lockstep with staged rows
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "scorer", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8,
     "PARTIALS": "bf16", "PDL": True, "Q_LOAD": "tma", "COMBINE": "siblings"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8, "KV_FORMAT": "fp8_656",
     "PARTIALS": "bf16", "Q_LOAD": "tma", "ROW_STORE": "staged", "COMBINE": "siblings"},
    # the scorer on FP8-656 rows (each value thread dequantizes the rows it copied), splits of whole
    # tiles: one split (the ring goes round many times), and the siblings' merge with PDL
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "scorer", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8,
     "KV_FORMAT": "fp8_656", "NUM_SPLITS": 1, "PARTIALS": "bf16", "Q_LOAD": "tma", "SPLIT_STEP": "tile",
     "FIRST_GATHER": "pair_first"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "scorer", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8,
     "KV_FORMAT": "fp8_656", "PARTIALS": "bf16", "PDL": True, "Q_LOAD": "tma", "COMBINE": "siblings",
     "SPLIT_STEP": "tile", "FIRST_GATHER": "pair_first"},
    # the same with adaptive pairs (a pair's second tile scored alone when its rows are late), and
    # adaptive pairs of a pair split, on one split
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "scorer", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8,
     "KV_FORMAT": "fp8_656", "PARTIALS": "bf16", "PDL": True, "Q_LOAD": "tma", "COMBINE": "siblings",
     "SPLIT_STEP": "tile", "FIRST_GATHER": "pair_first", "PAIRING": "adaptive"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "scorer", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8,
     "KV_FORMAT": "fp8_656", "NUM_SPLITS": 1, "PARTIALS": "bf16", "Q_LOAD": "tma", "FIRST_GATHER": "pair_first",
     "PAIRING": "adaptive"},
], ids=["mma_sync-bf16", "mma_sync-fp8-fused", "wgmma-bf16", "wgmma-fp8-overlap", "seesaw-bf16",
        "seesaw-bf16-odd-tiles", "seesaw-fp8-fused-prefetch", "seesaw-bf16-cluster", "seesaw-bf16-partials",
        "mma_sync-fp8-fused-bf16-partials", "mma_sync-bf16-pdl", "seesaw-bf16-partials-pdl",
        "seesaw-bf16-value-split-pdl", "seesaw-fp8-64rows-value-split", "seesaw-groups3-vs2",
        "seesaw-groups9-cluster", "seesaw-fp8-groups3-fused", "seesaw-64rows-groups9-odd-tiles",
        "seesaw-q-tma-groups3-pdl", "seesaw-64rows-q-tma-value-split", "seesaw-q-tma-cluster",
        "seesaw-fp8-q-tma-groups9-fused", "seesaw-bulk-rows-q-tma-pdl", "seesaw-bulk-rows-fp32",
        "seesaw-64rows-bulk-rows-value-split", "seesaw-fp8-bulk-rows-q-tma", "pingpong-q-tma-groups3-pdl",
        "pingpong-groups9-fused", "pingpong-one-split-bulk-rows", "pingpong-32-splits",
        "pingpong-64rows-q-tma-bulk-rows", "pingpong-64rows-groups9-fused", "pingpong-64rows-32-splits",
        "scorer-pdl", "scorer-one-split-bulk-rows", "scorer-fused", "scorer-32-splits",
        "scorer-staged-rows-pdl", "scorer-one-split-staged-rows", "seesaw-64rows-staged-rows-value-split",
        "pingpong-32-splits-staged-rows", "scorer-siblings-pdl", "seesaw-fp8-siblings-staged-rows",
        "scorer-fp8-one-split-tiles", "scorer-fp8-siblings-tiles-pdl", "scorer-fp8-siblings-tiles-adaptive",
        "scorer-fp8-one-split-pairs-adaptive"])
def test_cuda_genomes_verify_and_time_under_graph_replay(runner, genes):
    result = runner.evaluate(request(genes))
    assert result["status"] == "ok", result["error"]
    assert result["resources"]["registers"] > 0 and result["resources"]["spill_bytes"] == 0
    assert len(result["workloads"]) == 12 and all(w["median_us"] > 0 for w in result["workloads"])


ADAPTIVE_VOTE = "      if (!all_warps(mbar_test("
# the paired path issues both tiles' scores without waiting again (the vote saw both in): forced,
# it waits for the second tile's rows itself first
FORCED_PATHS = {"paired": "      mbar_wait(bar_full + 8 * ((2 * j + 1) % BUFS), ((2 * j + 1) / BUFS) & 1);\n"
                          "      if (false && !all_warps(mbar_test(",
                "unpaired": "      if (true || !all_warps(mbar_test("}


@pytest.mark.gpu
@pytest.mark.parametrize("path", sorted(FORCED_PATHS))
@pytest.mark.parametrize("genes", [
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "scorer", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8,
     "KV_FORMAT": "fp8_656", "PARTIALS": "bf16", "PDL": True, "Q_LOAD": "tma", "COMBINE": "siblings",
     "SPLIT_STEP": "tile", "FIRST_GATHER": "pair_first", "PAIRING": "adaptive"},
    {"MMA": "wgmma", "PIPELINE": "seesaw", "SCHEDULE": "scorer", "TOPK_TILE": 32, "STAGES": 2, "GATHER_LANES": 8,
     "PARTIALS": "bf16", "PDL": True, "Q_LOAD": "tma", "COMBINE": "siblings", "SPLIT_STEP": "tile",
     "FIRST_GATHER": "pair_first", "VALUE_ISSUE": "after_scores", "PAIRING": "adaptive"},
], ids=["fp8-at-p", "bf16-held"])
def test_adaptive_pairs_are_correct_on_either_path(runner, genes, path):
    # which path a pair of adaptive pairs takes depends on when its rows land: each is forced here
    # in turn (every pair of the call on it), so that both are verified whatever the timing
    source = TEMPLATE.render({**SPACE.default_params(), **genes})
    assert source.count(ADAPTIVE_VOTE) == 1
    result = runner.evaluate(request(genes, source=source.replace(ADAPTIVE_VOTE, FORCED_PATHS[path]), bench=False))
    assert result["status"] == "ok", result["error"]


@pytest.mark.gpu
def test_a_cuda_kernel_that_writes_out_of_bounds_is_an_illegal_address_and_the_worker_goes_on(runner):
    source = TEMPLATE.render(SPACE.default_params())
    anchor = "  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;\n"
    assert source.count(anchor) == 1
    wild = source.replace(anchor, anchor + "  if (tid == 0) reinterpret_cast<float*>(out)[1ll << 40] = 1.f;\n")
    crashed = runner.evaluate(request({}, source=wild, bench=False))
    assert crashed["status"] in ("illegal_address", "worker_crash"), crashed
    assert runner.evaluate(request({}, bench=False))["status"] == "ok"


@pytest.mark.gpu
def test_a_cuda_kernel_whose_first_launch_never_ends_is_a_timeout_of_its_first_call(module_worker):
    # nvcc built the cubin before the first launch: the hang is the kernel's, not the compiler's
    # (it was typed compile_timeout once, which sent a kernel engineer looking at nvcc)
    runner = module_worker("cuda", timeout_s=60)
    source = TEMPLATE.render(SPACE.default_params())
    anchor = "  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;\n"
    assert source.count(anchor) == 1
    stuck = source.replace(anchor, anchor + "  if (tid == 0) for (;;) __nanosleep(1000);\n")
    req = request({}, source=stuck, bench=False)
    req["guards"] = {"static": False}  # the static guard refuses a sleep: this test is of the runner
    hung = runner.evaluate(req)
    assert (hung["status"], hung["stage"]) == ("timeout", "first_call"), hung
    assert "worker killed" in hung["error"]
    assert runner.evaluate(request({}, bench=False))["status"] == "ok"  # a fresh worker, the same GPU
