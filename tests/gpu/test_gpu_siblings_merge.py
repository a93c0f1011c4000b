"""GPU tier: the siblings' merge (COMBINE = siblings). The split CTAs of a (token, head block) wait
for each other in the split kernel and each merges a share of the block's rows, on arrival counts
that the kernel re-arms itself. Checked against the float64 reference, outputs poisoned before
every call:
- every split count the launcher makes: the powers of two 2 to 32 (each thread holds all of its
  quads' splits in flight), the counts that do not divide the CTA's 64 heads that merge_range takes
  (3, 5, 6, 7, 11, and 13 and 22 for the scorer's splits of whole tiles; each thread holds its
  eighths' splits in flight: on 132 SMs B = 17, 12, 10, 9, 5-6, 5 and 3, and on other SM counts the
  smallest batch that takes each), other counts with 32-row tiles (the item-range fallback: 13 and
  22 on 132 SMs; the launcher gives the merge at most 32 splits), one at B=64 (no merge); the
  scorer genomes' merge_range counts with the scoring warpgroup in the merge as well (384
  threads), the others with the 256 compute threads;
- a split count asked beyond one wave, which the launcher caps (waiting CTAs that were not all
  resident would never end), and the split kernel launched cooperatively whenever it merges, so
  that the device starts the grid only with every CTA resident: the driver refuses a cooperative
  grid one CTA beyond a wave, and runs one of exactly a wave whose CTAs all wait for each other;
- invalid slots, a short context where whole splits have no key, a token with none at all;
- many calls in a row, eagerly and in one CUDA graph: the words are back at zero after every
  call, whether the graph's stream made its buffer before the capture (as the harness's warm call
  does) or during it (the zero fill recorded with the graph).
"""

from __future__ import annotations

import pytest

from tests.gpu._cuda_setup import TEMPLATE, load_cuda, load_entry, replay_checked, seesaw_params
from tests.sparse_mla_source import merge_dispatch

SCORER = {"SCHEDULE": "scorer", "TOPK_TILE": 32, "Q_LOAD": "tma", "PARTIALS": "bf16", "COMBINE": "siblings"}
GENOMES = {
    "scorer-pdl": {**SCORER, "PDL": True},
    "scorer-tile-splits": {**SCORER, "PDL": True, "SPLIT_STEP": "tile"},
    "scorer-staged-rows": {**SCORER, "ROW_STORE": "staged"},
    "scorer-held-second": {**SCORER, "PDL": True, "VALUE_ISSUE": "after_scores"},
    "scorer-held-second-pair-first-tiles": {**SCORER, "PDL": True, "VALUE_ISSUE": "after_scores",
                                            "FIRST_GATHER": "pair_first", "SPLIT_STEP": "tile"},
    "scorer-tile-first": {**SCORER, "PDL": True, "FIRST_GATHER": "tile_first"},
    "scorer-held-after-softmax-pair-first-tiles": {**SCORER, "PDL": True, "VALUE_ISSUE": "after_softmax",
                                                   "FIRST_GATHER": "pair_first", "SPLIT_STEP": "tile"},
    "lockstep-fp8-pdl": {"TOPK_TILE": 32, "KV_FORMAT": "fp8_656", "PARTIALS": "bf16", "COMBINE": "siblings", "PDL": True},
    # the scorer on FP8-656 rows, each value thread dequantizing what it copied: pairs of tiles,
    # all four first tiles at once; splits of whole tiles, the first pair alone, held tiles; the
    # first tile alone (the first pair is dequantized before the first P all the same)
    "scorer-fp8-pdl": {**SCORER, "KV_FORMAT": "fp8_656", "PDL": True},
    "scorer-fp8-held-second-pair-first-tiles": {**SCORER, "KV_FORMAT": "fp8_656", "PDL": True,
                                                "VALUE_ISSUE": "after_scores", "FIRST_GATHER": "pair_first",
                                                "SPLIT_STEP": "tile"},
    "scorer-fp8-tile-first": {**SCORER, "KV_FORMAT": "fp8_656", "PDL": True, "FIRST_GATHER": "tile_first"},
    # adaptive pairs (a pair's second tile scored alone when its rows are late): FP8 with splits of
    # whole tiles, and bf16 with held tiles (the held tile's release on either path)
    "scorer-fp8-adaptive-pair-first-tiles": {**SCORER, "KV_FORMAT": "fp8_656", "PDL": True, "FIRST_GATHER": "pair_first",
                                             "SPLIT_STEP": "tile", "PAIRING": "adaptive"},
    "scorer-adaptive-held-second-tiles": {**SCORER, "PDL": True, "VALUE_ISSUE": "after_scores", "SPLIT_STEP": "tile",
                                          "PAIRING": "adaptive"},
    # i8 partials (a thread's 64 values of a row as bytes with one scale): every merge (merge_share,
    # merge_range, the item-range fallback at 13 and 22 with pair steps) on bytes; the bf16
    # small-batch genome, pairs, FP8's adaptive scorer, the lockstep epilogue
    "scorer-i8-held-second-pair-first-tiles": {**SCORER, "PARTIALS": "i8", "PDL": True, "VALUE_ISSUE": "after_scores",
                                               "FIRST_GATHER": "pair_first", "SPLIT_STEP": "tile"},
    "scorer-i8-pdl": {**SCORER, "PARTIALS": "i8", "PDL": True},
    "scorer-fp8-i8-adaptive-pair-first-tiles": {**SCORER, "PARTIALS": "i8", "KV_FORMAT": "fp8_656", "PDL": True,
                                                "FIRST_GATHER": "pair_first", "SPLIT_STEP": "tile",
                                                "PAIRING": "adaptive"},
    "lockstep-i8": {"TOPK_TILE": 32, "PARTIALS": "i8", "COMBINE": "siblings", "PDL": True},
    "serial-wgmma": {"PIPELINE": "serial", "TOPK_TILE": 64, "GATHER_LANES": 4, "PARTIALS": "bf16",
                     "COMBINE": "siblings"},
    "serial-wgmma-32rows": {"PIPELINE": "serial", "TOPK_TILE": 32, "GATHER_LANES": 4, "PARTIALS": "bf16",
                            "COMBINE": "siblings"},
}


def merged_counts(genes: dict) -> set[int]:
    """The split counts a genome's rendered merge dispatch takes with merge_share or merge_range
    (any other count above one takes the item-range fallback)."""
    return set(merge_dispatch(TEMPLATE.render(seesaw_params(**genes))))


def _rearmed(entry) -> bool:
    """Every word of the siblings' buffers is back at zero (the launcher zeroed them once)."""
    import torch

    torch.cuda.synchronize()
    return all(int(words.count_nonzero()) == 0 for words in entry.sibling_words.values())


def _entry(genes: dict, tmp_path):
    return load_entry(seesaw_params(**genes), tmp_path)


def _check_calls(problem, entry, sets) -> None:
    for i, (inp, out) in enumerate(sets):
        problem.poison(out)
        problem.call(entry, inp, out)
        failure, errors = problem.check(inp, out)
        assert failure is None, (i, failure, errors)


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(GENOMES))
def test_siblings_merge_every_split_count_the_launcher_makes(tmp_path, name):
    import torch

    from evaluators.problem import Workload
    from evaluators.sparse_mla_cuda import split_plan

    contract, module, entry, problem, dev = _entry(GENOMES[name], tmp_path)
    sm_count = torch.cuda.get_device_properties(dev).multi_processor_count
    resident = sm_count * module.max_active_blocks(contract.split_kernel, contract.threads, contract.smem_bytes)

    def plan(batch: int) -> int:  # the launcher's split count for a batch of these workloads
        return split_plan(contract, batch, 128, 2048, sm_count, resident_ctas=resident)[0]

    workloads = [Workload("b1", 1, 128, 2048, 8192, invalid_fraction=0.1),
                 Workload("b2", 2, 128, 2048, 8192),
                 Workload("b3_short_empty", 3, 128, 2048, 1000, invalid_fraction=0.1, empty_rows=1),
                 Workload("b5", 5, 128, 2048, 8192),
                 Workload("b6", 6, 128, 2048, 8192, invalid_fraction=0.1),
                 Workload("b8", 8, 128, 2048, 32768, invalid_fraction=0.25),
                 Workload("b10_short_empty", 10, 128, 2048, 1500, invalid_fraction=0.1, empty_rows=1),
                 Workload("b16", 16, 128, 2048, 8192, invalid_fraction=0.1),
                 Workload("b32", 32, 128, 2048, 4096),
                 Workload("b64", 64, 128, 2048, 8192)]
    # and for each split count this device's SMs give some batch up to 64 that the list above
    # misses, the smallest such batch (on 132 SMs: B=9, 12 and 17 for 7, 5 and 3 splits)
    first_batch = {}
    for batch in range(64, 0, -1):
        first_batch[plan(batch)] = batch
    reached = {plan(w.batch) for w in workloads}
    workloads += [Workload(f"b{first_batch[s]}_{s}_splits", first_batch[s], 128, 2048, 4096, invalid_fraction=0.1)
                  for s in sorted(first_batch) if s not in reached]
    seen = set()
    for w in workloads:
        splits = plan(w.batch)
        seen.add(splits)
        pool = problem.new_pool(dev, [w])
        sets = [(problem.make_inputs(w, torch.Generator(dev).manual_seed(70 + i), pool), problem.poisoned_outputs(w, dev))
                for i in range(3)]
        _check_calls(problem, entry, sets + sets)  # twice over: the second round runs on re-armed counts
        assert _rearmed(entry), w.name
    # every count the launcher makes up to B=64: one split (no merge), the dispatch's counts
    # (merge_share, merge_range), at most 32, and with 32-row steps that the dispatch does not
    # name counts left to the fallback (on 132 SMs 13 and 22)
    merged = merged_counts(GENOMES[name])
    assert set(first_batch) <= seen and 1 in seen and seen & {s for s in merged if s & (s - 1)}, seen
    assert max(seen) <= 32, seen
    if contract.topk_tile == 32 and 13 not in merged:
        assert seen - merged - {1}, seen


@pytest.mark.gpu
def test_siblings_merge_caps_a_split_count_beyond_one_wave(tmp_path):
    import torch

    from evaluators.problem import Workload
    from evaluators.sparse_mla_cuda import split_plan

    contract, module, entry, problem, dev = _entry({**SCORER, "NUM_SPLITS": 32, "PDL": True}, tmp_path)
    sm_count = torch.cuda.get_device_properties(dev).multi_processor_count
    resident = sm_count * module.max_active_blocks(contract.split_kernel, contract.threads, contract.smem_bytes)
    w = Workload("b8", 8, 128, 2048, 8192, invalid_fraction=0.1)
    splits, _ = split_plan(contract, w.batch, w.heads, w.topk, sm_count, resident_ctas=resident)
    assert 1 < splits < 32 and splits * 2 * w.batch <= resident, (splits, resident)
    pool = problem.new_pool(dev, [w])
    sets = [(problem.make_inputs(w, torch.Generator(dev).manual_seed(90 + i), pool), problem.poisoned_outputs(w, dev))
            for i in range(2)]
    _check_calls(problem, entry, sets)
    assert _rearmed(entry)


# Every CTA counts itself in, then waits (a bounded spin) until the whole grid has: it records
# whether it saw every CTA arrive. One CTA an SM (the shared memory the launch asks for).
ALL_AT_ONCE = r"""
extern "C" __global__ void all_at_once(int* arrived, int* saw_all, long long spin_clocks) {
  if (threadIdx.x == 0) {
    atomicAdd(arrived, 1);
    const long long start = clock64();
    int n = 0;
    while ((n = atomicAdd(arrived, 0)) < (int)gridDim.x && clock64() - start < spin_clocks) {
    }
    saw_all[blockIdx.x] = n >= (int)gridDim.x;
  }
}
"""


@pytest.mark.gpu
def test_a_cooperative_launch_runs_a_wave_at_once_and_is_refused_beyond_it(tmp_path):
    import numpy as np
    import torch

    from evaluators.cuda_launch import LaunchError

    module, dev = load_cuda(ALL_AT_ONCE, tmp_path)
    smem = 200 * 1024
    wave = torch.cuda.get_device_properties(dev).multi_processor_count * module.max_active_blocks("all_at_once", 128, smem)
    arrived = torch.zeros(1, dtype=torch.int32, device=dev)
    saw_all = torch.zeros(wave + 1, dtype=torch.int32, device=dev)
    module.launch("all_at_once", (wave, 1, 1), 128, smem, arrived.data_ptr(), saw_all.data_ptr(), np.int64(2 * 10**9),
                  cooperative=True)
    torch.cuda.synchronize()
    assert int(arrived) == wave and int(saw_all[:wave].sum()) == wave
    with pytest.raises(LaunchError, match="COOPERATIVE_LAUNCH_TOO_LARGE"):
        module.launch("all_at_once", (wave + 1, 1, 1), 128, smem, arrived.data_ptr(), saw_all.data_ptr(),
                      np.int64(10**6), cooperative=True)
    torch.cuda.synchronize()
    assert int(arrived) == wave  # nothing of the refused grid ran


@pytest.mark.gpu
def test_the_split_kernel_is_launched_cooperatively_when_it_merges(tmp_path):
    import torch

    from evaluators.problem import Workload

    contract, module, entry, problem, dev = _entry(GENOMES["scorer-pdl"], tmp_path)
    launches = []
    launch = module.launch

    def recording_launch(name, grid, *args, **kwargs):  # the real launch, its grid and attribute noted
        launches.append((name, grid[1], kwargs.get("cooperative", False)))
        return launch(name, grid, *args, **kwargs)

    module.launch = recording_launch
    for batch in (8, 64):  # 8 splits; one split (no merge) at B=64
        w = Workload(f"b{batch}", batch, 128, 2048, 4096)
        pool = problem.new_pool(dev, [w])
        _check_calls(problem, entry, [(problem.make_inputs(w, torch.Generator(dev).manual_seed(batch), pool),
                                       problem.poisoned_outputs(w, dev))])
    # 8 splits launch the entry that carries the merge of 8 alone; one split, the entry of no count
    assert contract.split_kernel_for(8) == "sparse_mla_decode_split_s8" != contract.split_kernel
    assert launches == [("sparse_mla_decode_split_s8", 8, True), (contract.split_kernel, 1, False)], launches


@pytest.mark.gpu
@pytest.mark.parametrize("warmed_on_capture_stream", [True, False], ids=["buffer-before-capture", "buffer-in-capture"])
@pytest.mark.parametrize("batch", [1, 8])
def test_siblings_merge_calls_in_one_graph_are_each_correct(tmp_path, batch, warmed_on_capture_stream):
    import torch

    from evaluators.problem import Workload

    _, _, entry, problem, dev = _entry(GENOMES["scorer-pdl"], tmp_path)
    w = Workload(f"b{batch}", batch, 128, 2048, 8192, invalid_fraction=0.1)
    pool = problem.new_pool(dev, [w])
    sets = [(problem.make_inputs(w, torch.Generator(dev).manual_seed(110 + i), pool), problem.poisoned_outputs(w, dev))
            for i in range(6)]
    _check_calls(problem, entry, sets)  # module loading and the default stream's words, outside the graph
    stream = torch.cuda.Stream(dev)
    if warmed_on_capture_stream:
        stream.wait_stream(torch.cuda.current_stream(dev))
        with torch.cuda.stream(stream):
            _check_calls(problem, entry, sets)
        torch.cuda.current_stream(dev).wait_stream(stream)
    before = dict(entry.sibling_words)
    replay_checked(problem, entry, sets, dev, replays=3, stream=stream)
    assert _rearmed(entry)
    # a buffer made before the capture is the graph's: the capture reuses it, makes none
    same = entry.sibling_words.keys() == before.keys() and all(entry.sibling_words[k] is v for k, v in before.items())
    assert same == warmed_on_capture_stream
