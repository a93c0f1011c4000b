"""GPU tier: the bulk tensor copy path of the launcher. A tensor map encoded by
`bf16_tensor_map_2d` and passed by value reaches the kernel intact, and its boxes land
128-byte swizzled as wgmma reads them (chunk j of row r at j ^ (r % 8)), also in a cluster launch
through the driver; the sparse MLA launcher refuses a q its tensor map cannot start at."""

from __future__ import annotations

import numpy as np
import pytest

from tests.gpu._cuda_setup import load_cuda, load_genome, seesaw_params

# Each CTA copies box (blockIdx.x, blockIdx.y) of 64 rows x 64 bf16 columns into shared memory
# through the map, then writes the shared bytes out as they lie.
COPY_BOX = r"""
#include <stdint.h>
struct alignas(64) TensorMap { unsigned long long opaque[16]; };
extern "C" __global__ void copy_box(uint4* out, const __grid_constant__ TensorMap map) {
  __shared__ __align__(1024) uint8_t tile[64 * 128];
  __shared__ __align__(8) uint64_t bar;
  const uint32_t t = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  const uint32_t b = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(b));
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(b), "r"(64 * 128) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, { %2, %3}], [%4];\n"
                 ::"r"(t), "l"(reinterpret_cast<uint64_t>(&map)), "r"(64 * (int)blockIdx.x), "r"(64 * (int)blockIdx.y),
                 "r"(b) : "memory");
  }
  asm volatile("{\n .reg .pred p;\n w:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n @!p bra w;\n}\n"
               ::"r"(b) : "memory");
  const int cta = blockIdx.y * gridDim.x + blockIdx.x;
  for (int i = threadIdx.x; i < 64 * 8; i += blockDim.x)
    out[cta * 64 * 8 + i] = reinterpret_cast<const uint4*>(tile)[i];
}
"""


@pytest.mark.gpu
@pytest.mark.parametrize("cluster", [None, (1, 2, 1)])
def test_a_tensor_map_passed_by_value_lands_its_boxes_swizzled(tmp_path, cluster):
    import torch

    from evaluators.cuda_launch import bf16_tensor_map_2d

    module, dev = load_cuda(COPY_BOX, tmp_path)
    rows, cols = 128, 576                    # two boxes down, nine across: the queries of two head blocks
    src = torch.randn(rows, cols, device=dev).to(torch.bfloat16)
    grid = (cols // 64, rows // 64, 1)
    out = torch.full((grid[0] * grid[1], 64, 64), float("nan"), device=dev, dtype=torch.bfloat16)
    tmap = bf16_tensor_map_2d(src.data_ptr(), cols, rows, cols * 2, 64, 64)
    module.launch("copy_box", grid, 128, 0, out.data_ptr(), tmap, cluster=cluster)
    torch.cuda.synchronize()
    got = out.view(torch.int16).cpu().numpy().reshape(grid[1], grid[0], 64, 8, 8)  # box, row, 16-byte chunk, value
    want = src.view(torch.int16).cpu().numpy().reshape(grid[1], 64, grid[0], 8, 8).transpose(0, 2, 1, 3, 4)
    r = np.arange(64)[:, None]
    swizzled = np.empty_like(want)
    swizzled[:, :, r, np.arange(8)[None, :] ^ (r % 8)] = want  # chunk j of row r at j ^ (r % 8)
    assert np.array_equal(got, swizzled)


@pytest.mark.gpu
def test_the_launcher_refuses_a_q_its_tensor_map_cannot_start_at(tmp_path):
    import torch

    from evaluators.sparse_mla_cuda import make_entry, parse_contract

    source, module, dev = load_genome(seesaw_params(TOPK_TILE=32, Q_LOAD="tma"), tmp_path)
    entry = make_entry(parse_contract(source), module)
    flat = torch.randn(128 * 576 + 1, device=dev).to(torch.bfloat16)
    q = flat[1:].view(1, 128, 576)                       # contiguous, but 2 bytes past a 16-byte boundary
    kv = torch.randn(64, 576, device=dev).to(torch.bfloat16)
    indices = torch.zeros(1, 2048, dtype=torch.int32, device=dev)
    out = torch.empty(1, 128, 512, dtype=torch.bfloat16, device=dev)
    lse = torch.empty(1, 128, dtype=torch.float32, device=dev)
    with pytest.raises(ValueError, match="tensor map, which needs a 16-byte-aligned start"):
        entry(q, kv, indices, 0.1, out, lse)
