"""GPU tier: the siblings' merge (COMBINE = siblings). The split CTAs of a (token, head block) wait
for each other in the split kernel and each merges a share of the block's rows, on arrival counts
that the kernel re-arms itself. Checked against the float64 reference, outputs poisoned before
every call:
- every split count the launcher makes: a power of two (each thread holds all of its quads'
  splits in flight), 11 at B=6 (the item-range fallback), one at B=64 (no merge);
- a split count asked beyond one wave, which the launcher caps (waiting CTAs that were not all
  resident would never end);
- invalid slots, a short context where whole splits have no key, a token with none at all;
- many calls in a row, eagerly and in one CUDA graph on another stream: the counts re-arm and
  the graph's own count buffer starts at zero.
"""

from __future__ import annotations

import pytest

from tests.gpu._cuda_setup import SPACE, load_genome, replay_checked, seesaw_params

SCORER = {"SCHEDULE": "scorer", "TOPK_TILE": 32, "Q_LOAD": "tma", "PARTIALS": "bf16", "COMBINE": "siblings"}
GENOMES = {
    "scorer-pdl": {**SCORER, "PDL": True},
    "scorer-staged-rows": {**SCORER, "ROW_STORE": "staged"},
    "lockstep-fp8-pdl": {"TOPK_TILE": 32, "KV_FORMAT": "fp8_656", "PARTIALS": "bf16", "COMBINE": "siblings", "PDL": True},
    "serial-wgmma": {"PIPELINE": "serial", "TOPK_TILE": 64, "GATHER_LANES": 4, "PARTIALS": "bf16",
                     "COMBINE": "siblings"},
}


def _entry(genes: dict, tmp_path):
    from evaluators.sparse_mla import SparseMlaDecode
    from evaluators.sparse_mla_cuda import make_entry, parse_contract

    params = seesaw_params(**genes)
    assert SPACE.is_valid(params), SPACE.violations(params)
    source, module, dev = load_genome(params, tmp_path)
    contract = parse_contract(source)
    return contract, module, make_entry(contract, module), SparseMlaDecode(params["KV_FORMAT"]), dev


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
    seen = set()
    for w in [Workload("b1", 1, 128, 2048, 8192, invalid_fraction=0.1),
              Workload("b2", 2, 128, 2048, 8192),
              Workload("b3_short_empty", 3, 128, 2048, 1000, invalid_fraction=0.1, empty_rows=1),
              Workload("b6", 6, 128, 2048, 8192, invalid_fraction=0.1),
              Workload("b8", 8, 128, 2048, 32768, invalid_fraction=0.25),
              Workload("b64", 64, 128, 2048, 8192)]:
        splits, _ = split_plan(contract, w.batch, w.heads, w.topk, sm_count, resident_ctas=resident)
        seen.add(splits)
        pool = problem.new_pool(dev, [w])
        sets = [(problem.make_inputs(w, torch.Generator(dev).manual_seed(70 + i), pool), problem.poisoned_outputs(w, dev))
                for i in range(3)]
        _check_calls(problem, entry, sets + sets)  # twice over: the second round runs on re-armed counts
    # one split (no merge), powers of two (one round trip) and another count (the fallback): on 132
    # SMs 32, 32, 16, 11, 8 and 1
    assert 1 in seen and any(s > 1 and s & (s - 1) == 0 for s in seen) and any(s & (s - 1) for s in seen), seen


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


@pytest.mark.gpu
@pytest.mark.parametrize("batch", [1, 8])
def test_siblings_merge_calls_in_one_graph_are_each_correct(tmp_path, batch):
    import torch

    from evaluators.problem import Workload

    _, _, entry, problem, dev = _entry(GENOMES["scorer-pdl"], tmp_path)
    w = Workload(f"b{batch}", batch, 128, 2048, 8192, invalid_fraction=0.1)
    pool = problem.new_pool(dev, [w])
    sets = [(problem.make_inputs(w, torch.Generator(dev).manual_seed(110 + i), pool), problem.poisoned_outputs(w, dev))
            for i in range(6)]
    _check_calls(problem, entry, sets)  # module loading and the default stream's counts, outside the graph
    replay_checked(problem, entry, sets, dev, replays=3)
