"""How fast the tensor cores take warpgroup products of each width: m64nNk16 bf16 wgmma issued back
to back by 1, 2 or 3 warpgroups of one CTA on every SM, A from registers (RS, as the scorer's
score products) or from shared memory (SS, as the value products), B from 128-byte-swizzled
shared memory, K-major (and for the value products' m64n256k16 also MN-major, the rows read
transposed), fp32 accumulators. Per (N, A's source, B's order, warpgroups): the cycles between two products
of one warpgroup (clock64 around the loop, median over the CTAs) and the multiprocessor's rate in
FLOP a cycle, against the 4096 of the bf16 peak (989 TFLOP/s at 1.83 GHz on 132 SMs).

A diagnostic for the schedule's design (the scorer's 32-row score products are m64n32k16; a pair of
tiles scored as one m64n64k16 issues half the products), never a figure of the method. Shared
memory and the A registers hold random bf16 values (tensor-core power, so the clock, depends on
the data: zeros would flatter).

Usage: python3 scripts/device/wgmma_rate.py [--iters 4096]. Writes $OUT/wgmma_rate.json.
"""
import argparse, json, os, statistics, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wgmma_ptx import RANDOM_BF16X2, SW128_DESC, wgmma_asm

WIDTHS = (32, 64, 128, 256)
SOURCES = ("rs", "ss")
# the value products' shape beside them: m64n256k16 with B MN-major (the rows read transposed:
# 64-column blocks of 64 rows, 8 KB apart), A from registers (P in registers) or shared memory
TRANSPOSED = (("rs", 256), ("ss", 256))


def kernels() -> list[tuple[str, str, int, int]]:
    """(name, A's source, N, trans_b) of every kernel."""
    return ([(f"rate_{a}_{n}", a, n, 0) for a in SOURCES for n in WIDTHS] +
            [(f"rate_{a}_t_{n}", a, n, 1) for a, n in TRANSPOSED])


PEAK_FLOP_PER_CYCLE = 4096  # bf16 dense, one SM


def kernel_source() -> str:
    """One kernel per kernels() entry: <name>(clocks, iters, warpgroups, sink)."""
    parts = ["#include <stdint.h>\n", SW128_DESC, RANDOM_BF16X2]
    for name, source, n, trans_b in kernels():
        # a k-step's B: the next 32 bytes of each row (K-major), or the next 16 rows (MN-major)
        db0 = "sw128_desc(base + 64 * 128, 8192)" if trans_b else "sw128_desc(base + 64 * 128)"
        step = 128 if trans_b else 2
        parts.append(f"""
extern "C" __global__ void __launch_bounds__(384, 1) {name}(long long* clocks, int iters, int warpgroups,
                                                                      float* sink) {{
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  uint8_t* smem = smem_raw + ((1024 - ((uint32_t)__cvta_generic_to_shared(smem_raw) & 1023)) & 1023);
  uint32_t* words = reinterpret_cast<uint32_t*>(smem);
  for (int i = threadIdx.x; i < (64 + {n}) * 32; i += blockDim.x) words[i] = random_bf16x2(i + 7919 * blockIdx.x);
  asm volatile("fence.proxy.async.shared::cta;\\n" ::: "memory");
  __syncthreads();
  const int wg = threadIdx.x >> 7;
  if (wg >= warpgroups) return;
  const uint32_t base = (uint32_t)__cvta_generic_to_shared(smem);
  const uint64_t da0 = sw128_desc(base), db0 = {db0};  // A: 64 rows x 64 dims; B: {n} rows x 64 dims, or 64 x {n}
  uint32_t a[4];
  for (int i = 0; i < 4; ++i) a[i] = random_bf16x2(threadIdx.x * 4 + i);
  float d[{n // 2}];
#pragma unroll
  for (int i = 0; i < {n // 2}; ++i) d[i] = 0.f;
  asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory");
  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {{
#pragma unroll
    for (int k = 0; k < 4; ++k) {{  // four k-steps
      const uint64_t da = da0 + 2 * k, db = db0 + {step} * k;
      (void)da;
      {wgmma_asm(n, source == "rs", trans_b=trans_b)}
    }}
    asm volatile("wgmma.commit_group.sync.aligned;\\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;\\n" ::: "memory");
  }}
  asm volatile("wgmma.wait_group.sync.aligned 0;\\n" ::: "memory");
  const long long t1 = clock64();
  float acc = 0.f;
#pragma unroll
  for (int i = 0; i < {n // 2}; ++i) acc += d[i];
  if ((threadIdx.x & 127) == 0) {{
    clocks[2 * (blockIdx.x * 3 + wg)] = t0;
    clocks[2 * (blockIdx.x * 3 + wg) + 1] = t1;
    sink[blockIdx.x * 3 + wg] = acc;
  }}
}}
""")
    return "".join(parts)


def main():
    import numpy as np
    import torch
    from cuda_entry import per_sm_rig

    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=4096)
    args = ap.parse_args()
    dev = torch.device("cuda", 0)
    module, sms, clocks, sink = per_sm_rig(kernel_source(), "wgmma_rate", dev)
    report = []
    for name, source, n, trans_b in kernels():
        smem = (64 + n) * 128 + 1024
        for warpgroups in (1, 2, 3):
            launch = lambda: module.launch(name, (sms, 1, 1), 384, smem, clocks.data_ptr(),  # noqa: E731
                                           np.int32(args.iters), np.int32(warpgroups), sink.data_ptr())
            launch()  # warm (module and clocks)
            clocks.zero_()
            launch()
            torch.cuda.synchronize()
            assert torch.isfinite(sink).all(), "a product gave a non-finite accumulator"
            c = clocks.view(sms, 3, 2).cpu()
            cycles = [(c[s, w, 1] - c[s, w, 0]).item() / (args.iters * 4) for s in range(sms) for w in range(warpgroups)]
            per_product = statistics.median(cycles)
            rate = warpgroups * 2 * 64 * n * 16 / per_product
            row = {"n": n, "a": source, "b_mn_major": bool(trans_b), "warpgroups": warpgroups,
                   "cycles_per_product": round(per_product, 2), "flop_per_cycle_sm": round(rate),
                   "of_peak": round(rate / PEAK_FLOP_PER_CYCLE, 3)}
            report.append(row)
            print(json.dumps(row), flush=True)
    Path(os.environ.get("OUT", "/tmp"), "wgmma_rate.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
