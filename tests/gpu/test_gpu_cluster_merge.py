"""GPU tier: thread-block clusters. The launcher's cluster launch (cuda.core counts the grid in
clusters; ours is in CTAs) places every CTA once with the cluster rank the kernel expects, and
the seesaw kernel's cluster merge (COMBINE = cluster) matches the float64 reference, including
a split that gets no rows and a 16-CTA (non-portable) cluster."""

from __future__ import annotations

import pytest

from tests.gpu._cuda_setup import load_cuda, load_entry, load_genome, seesaw_params

WHERE_AM_I = r"""
extern "C" __global__ void where_am_i(int* out) {
  unsigned rank, size;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(size));
  if (threadIdx.x == 0) {
    const int cta = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    atomicAdd(out + 3 * cta, 1);
    out[3 * cta + 1] = rank;
    out[3 * cta + 2] = size;
  }
}
"""


@pytest.mark.gpu
@pytest.mark.parametrize("cluster", [(1, 4, 1), (1, 16, 1)])
def test_a_cluster_launch_runs_every_cta_once_with_its_rank(tmp_path, cluster):
    import torch

    module, dev = load_cuda(WHERE_AM_I, tmp_path)
    grid = (2, cluster[1], 3)
    n = grid[0] * grid[1] * grid[2]
    out = torch.full((n, 3), -1, dtype=torch.int32, device=dev)
    out[:, 0] = 0
    module.launch("where_am_i", grid, 32, 0, out.data_ptr(), cluster=cluster)
    torch.cuda.synchronize()
    got = out.cpu().view(grid[2], grid[1], grid[0], 3)
    assert (got[..., 0] == 1).all()                          # every CTA ran, once
    assert (got[..., 2] == cluster[1]).all()                 # in clusters of the asked size
    ranks = torch.arange(cluster[1]).view(1, -1, 1).expand(grid[2], -1, grid[0])
    assert (got[..., 1] == ranks).all()                      # whose rank is blockIdx.y


@pytest.mark.gpu
@pytest.mark.parametrize("genes, topk", [
    ({"TOPK_TILE": 32, "NUM_SPLITS": 4}, 300),                          # split 3 has no rows
    ({"TOPK_TILE": 64, "NUM_SPLITS": 16, "KV_FORMAT": "fp8_656"}, 2048),
    ({"TOPK_TILE": 32, "NUM_SPLITS": "auto"}, 2048),
], ids=["empty-split", "fp8-16-ctas", "auto"])
def test_the_cluster_merge_matches_the_reference(tmp_path, genes, topk):
    import torch

    from evaluators.problem import Workload

    _, _, entry, problem, dev = load_entry(seesaw_params(COMBINE="cluster", **genes), tmp_path)
    w = Workload("cluster", 3, 128, topk, 4096, invalid_fraction=0.1, empty_rows=1)
    inp = problem.make_inputs(w, torch.Generator(dev).manual_seed(7), problem.new_pool(dev, [w]))
    out, lse = problem.poisoned_outputs(w, dev)
    problem.call(entry, inp, (out, lse))
    torch.cuda.synchronize()
    failure, errors = problem.check(inp, (out, lse))
    assert failure is None, (failure, errors)


@pytest.mark.gpu
def test_auto_cluster_splits_fit_the_clusters_the_device_holds_at_once(tmp_path):
    import torch

    from evaluators.sparse_mla_cuda import parse_contract, split_plan

    source, module, dev = load_genome(seesaw_params(TOPK_TILE=32, COMBINE="cluster"), tmp_path)
    contract = parse_contract(source)
    capacity = {s: module.max_active_clusters(contract.split_kernel, (1, s, 1), contract.threads,
                                              contract.smem_bytes) for s in (2, 4, 8, 16)}
    print("clusters held at once:", capacity)
    sm_count = torch.cuda.get_device_properties(dev).multi_processor_count
    assert 0 < capacity[8] * 8 <= sm_count and capacity[2] * 2 <= sm_count  # one 225 KB CTA per SM
    for batch in (1, 2, 4, 8, 16, 64):
        splits, _ = split_plan(contract, batch, 128, 2048, sm_count, capacity.__getitem__)
        if splits > 1:
            assert batch * 2 <= capacity[splits], (batch, splits, capacity)
