"""Whether the tensor cores can take the scorer schedule's mix of products at their full rate: one
CTA an SM, warpgroup 2 issuing the score products of tiles in pairs (a 32-row tile: 36 m64n32k16,
28 with A from registers and the last 8 from shared memory, as the kernel's scorer, or all 36 from
registers, or on the tile's first block only, or only the first 8 from registers; or 64-row tiles, m64n64k16), warpgroups 0 and 1 each a tile's value products
(m64n256k16, A = P, B = the rows read transposed, MN-major, as the kernel's `tnspB`, or the same
bytes K-major). Each active warpgroup runs its own loop over the same rows (no hand-offs between
them: the products alone). Per mode: each warpgroup's cycles per 32 rows (clock64, median over the
CTAs), the cycles per 32 rows until every active warpgroup is done, and the tensor cores' busy
fraction: the mode's products at the bf16 peak of 4096 FLOP a cycle (576 cycles per 32 rows for
the scores, 256 for each value warpgroup) over that time.

A diagnostic of the schedule's design, never a figure of the method. Shared memory and the A
registers hold random nonzero bf16 values (the clock depends on the data).

Usage: python3 scripts/device/wgmma_mix.py [--iters 2048] (32-row tiles). Writes $OUT/wgmma_mix.json.
"""
import argparse, json, os, statistics, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wgmma_ptx import RANDOM_BF16X2, wgmma_asm

# mode: (kernel, warpgroups active as a bit mask: 1 = value wg 0, 2 = value wg 1, 4 = scorer)
MODES = {
    "scores alone": ("mix_32", 4),
    "scores alone, every k-step A from registers": ("mix_32_rs", 4),
    "scores alone, 64-row tiles (m64n64k16)": ("mix_64", 4),
    "scores alone, every k-step A from registers, on one block": ("mix_32_rs_one_block", 4),
    "two value wgs alone": ("mix_32", 3),
    "two value wgs alone, B K-major": ("mix_32_k", 3),
    "two value wgs alone, 64-row tiles": ("mix_64", 3),
    "scores + two value wgs": ("mix_32", 7),
    "scores + two value wgs, every k-step A from registers": ("mix_32_rs", 7),
    "scores + two value wgs, 64-row tiles": ("mix_64", 7),
    "scores alone, A from registers for 8 k-steps": ("mix_32_q2", 4),
    "scores + two value wgs, A from registers for 8 k-steps": ("mix_32_q2", 7),
}
SCORE_CYCLES, VALUE_CYCLES = 576, 256  # a tile's products at the peak rate

KERNEL = r"""#include <stdint.h>
__device__ __forceinline__ uint64_t desc(uint32_t addr, uint32_t lbo, uint32_t sbo, uint32_t swizzle) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)((lbo & 0x3FFFF) >> 4) << 16) |
         ((uint64_t)((sbo & 0x3FFFF) >> 4) << 32) | ((uint64_t)swizzle << 62);
}
RANDOM_BF16X2
PRODUCT_FNS
// BK-row tiles: score products m64nBKk16 over 36 k-steps (the first RS_STEPS with A from
// registers, the rest from shared memory), value products m64n256k16 over BK / 16 k-steps a value
// warpgroup
template <int BK, int RS_STEPS, bool TRANSPOSED, bool ONE_BLOCK>
__device__ __forceinline__ void mix(long long* clocks, int tiles, int active, float* sink) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  uint8_t* smem = smem_raw + ((1024 - ((uint32_t)__cvta_generic_to_shared(smem_raw) & 1023)) & 1023);
  // a tile (9 blocks of BK rows x 128 B), two query blocks of 64 rows, P (64 rows x 2 BK B)
  constexpr int BLK = BK * 128, TILE = 9 * BLK, Q = 16384, P = 128 * BK;
  uint32_t* words = reinterpret_cast<uint32_t*>(smem);
  for (int i = threadIdx.x; i < (TILE + Q + P) / 4; i += blockDim.x) words[i] = random_bf16x2(i + 7919 * blockIdx.x);
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  const int wg = threadIdx.x >> 7;
  if (!((active >> wg) & 1)) return;
  const uint32_t tile = (uint32_t)__cvta_generic_to_shared(smem), q = tile + TILE, p = q + Q;
  float acc = 0.f;
  long long t0, t1;
  if (wg == 2) {  // as the kernel's scorer: tiles in pairs, each into its own accumulators
    uint32_t a[4];
    for (int i = 0; i < 4; ++i) a[i] = random_bf16x2(threadIdx.x * 4 + i);
    auto issue = [&](float (&d)[BK / 2]) {
#pragma unroll
      for (int kk = 0; kk < 36; ++kk) {
        const uint64_t db = desc(tile + (ONE_BLOCK ? 0 : (kk >> 2) * BLK) + (kk & 3) * 32, 16, 1024, 1);
        if (kk == 0) score_rs_first<BK>(d, a, db);
        else if (kk < RS_STEPS) score_rs<BK>(d, a, db);
        else score_ss<BK>(d, desc(q + ((kk >> 2) & 1) * 8192 + (kk & 3) * 32, 16, 1024, 1), db);
      }
      asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    };
    t0 = clock64();
    for (int it = 0; it < tiles; it += 2) {
      float sa[BK / 2], sb[BK / 2];
      asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
      issue(sa);
      issue(sb);
      asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
      acc += sa[0] + sa[BK / 2 - 1];
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
      acc += sb[0] + sb[BK / 2 - 1];  // every product's results are read: ptxas drops unread ones
    }
    t1 = clock64();
  } else {
    float o[128];
#pragma unroll
    for (int i = 0; i < 128; ++i) o[i] = 0.f;
    t0 = clock64();
    for (int it = 0; it < tiles; ++it) {
      asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk) {
        // P K-major (32-row tiles: 64-byte swizzle, 8-row groups 512 B apart; 64-row: 128-byte, 1 KB)
        const uint64_t da = BK == 32 ? desc(p + kk * 32, 16, 512, 2) : desc(p + kk * 32, 16, 1024, 1);
        if constexpr (TRANSPOSED)  // rows kk*16.. of columns wg*256..: MN-major, 64-column blocks BLK apart
          value_t(o, da, desc(tile + wg * 4 * BLK + kk * 16 * 128, BLK, 1024, 1));
        else             // the same bytes read K-major (a different product, the same traffic)
          value_k(o, da, desc(tile + wg * 4 * BLK + kk * 32, 16, 1024, 1));
      }
      asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    }
    t1 = clock64();
#pragma unroll
    for (int i = 0; i < 128; ++i) acc += o[i];
  }
  if ((threadIdx.x & 127) == 0) {
    clocks[2 * (blockIdx.x * 3 + wg)] = t0;
    clocks[2 * (blockIdx.x * 3 + wg) + 1] = t1;
    sink[blockIdx.x * 3 + wg] = acc;
  }
}
// one kernel each (a branch around a product makes ptxas fence every product, C7519)
KERNELS
"""

# kernel: (rows a tile, score k-steps with A from registers (of 36: 28 as the kernel's scorer),
# value B transposed, every score k-step on the tile's first block: B's 36 reads not walking its
# nine blocks). mix_32_q2: A from registers for the first two query blocks only (8 k-steps), what
# a scorer keeps in registers when two scorers share the register file beside the value
# warpgroups (65,536 = 256 x 160 + 256 x 96): the rate two scorers' products could reach at most.
KERNELS = {"mix_32": (32, 28, True, False), "mix_32_k": (32, 28, False, False),
           "mix_32_rs": (32, 36, True, False), "mix_64": (64, 28, True, False),
           "mix_32_rs_one_block": (32, 36, True, True), "mix_32_q2": (32, 8, True, False)}


def product_fn(name: str, n: int, a_regs: bool, first: bool = False, trans_b: int = 0) -> str:
    """A device function of one product k-step (wgmma_ptx.wgmma_asm's), taking A's registers or
    descriptor and B's descriptor."""
    args = "const uint32_t (&a)[4], uint64_t db" if a_regs else "uint64_t da, uint64_t db"
    return (f"__device__ __forceinline__ void {name}(float (&d)[{n // 2}], {args}) {{\n"
            f"  {wgmma_asm(n, a_regs, first, trans_b)}\n}}\n")


def kernel_source() -> str:
    fns = []
    for n in (32, 64):  # the score products, one specialization each width
        for name, a_regs, first in (("score_rs_first", True, True), ("score_rs", True, False), ("score_ss", False, False)):
            fns.append(product_fn(f"{name}_{n}", n, a_regs, first))
    for name in ("score_rs_first", "score_rs", "score_ss"):
        args, call = (("const uint32_t (&a)[4], uint64_t db", "a, db") if name != "score_ss" else
                      ("uint64_t da, uint64_t db", "da, db"))
        fns.append(f"template <int N>\n__device__ __forceinline__ void {name}(float (&d)[N / 2], {args}) {{\n"
                   f"  if constexpr (N == 32) {name}_32(d, {call}); else {name}_64(d, {call});\n}}\n")
    fns.append(product_fn("value_t", 256, False, trans_b=1))
    fns.append(product_fn("value_k", 256, False, trans_b=0))
    kernels = "".join(
        f'extern "C" __global__ void __launch_bounds__(384, 1) {k}(long long* clocks, int tiles, int active, float* sink) {{\n'
        f"  mix<{bk}, {rs}, {', '.join('true' if f else 'false' for f in flags)}>(clocks, tiles, active, sink);\n}}\n"
        for k, (bk, rs, *flags) in KERNELS.items())
    return (KERNEL.replace("RANDOM_BF16X2", RANDOM_BF16X2, 1).replace("PRODUCT_FNS", "".join(fns))
            .replace("KERNELS", kernels))


def main():
    import numpy as np
    import torch
    from cuda_entry import per_sm_rig

    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=2048, help="32-row tiles a warpgroup")
    args = ap.parse_args()
    dev = torch.device("cuda", 0)
    module, sms, clocks, sink = per_sm_rig(kernel_source(), "wgmma_mix", dev)
    report = []
    for mode, (kernel, active) in MODES.items():
        rows = KERNELS[kernel][0]
        tiles = args.iters * 32 // rows  # the same rows in every mode
        smem = 9 * rows * 128 + 16384 + 128 * rows + 1024
        launch = lambda: module.launch(kernel, (sms, 1, 1), 384, smem, clocks.data_ptr(),  # noqa: E731
                                       np.int32(tiles), np.int32(active), sink.data_ptr())
        launch()  # warm
        clocks.zero_()
        launch()
        torch.cuda.synchronize()
        assert torch.isfinite(sink).all(), "a product gave a non-finite accumulator"
        c = clocks.view(sms, 3, 2).cpu()
        wgs = [(w, name) for w, name in ((2, "scorer"), (0, "value0"), (1, "value1")) if (active >> w) & 1]
        per_wg = {name: statistics.median((c[s, w, 1] - c[s, w, 0]).item() / args.iters for s in range(sms))
                  for w, name in wgs}
        all_done = statistics.median((max(c[s, w, 1].item() for w, _ in wgs) - min(c[s, w, 0].item() for w, _ in wgs))
                                     / args.iters for s in range(sms))
        work = (SCORE_CYCLES if active & 4 else 0) + VALUE_CYCLES * bin(active & 3).count("1")
        row = {"mode": mode, "cycles_per_32_rows": {k: round(v, 1) for k, v in per_wg.items()},
               "all_done_per_32_rows": round(all_done, 1), "tensor_busy": round(work / all_done, 3)}
        report.append(row)
        print(json.dumps(row), flush=True)
    Path(os.environ.get("OUT", "/tmp"), "wgmma_mix.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
