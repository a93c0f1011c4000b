"""How long the siblings' merge traffic takes an SM, one CTA on each of 128 SMs (B=8's grid: 16
groups of 8 splits), 64 KB of one CTA's bf16 partials (64 heads x 512) each, in the ways a merge
could move them:
- store: each CTA stores its partials to its own rows (16-byte stores, as the epilogue does), then
  a release (the arrival's fence); store_no_fence: the same without the release;
- bulk_store: each CTA's threads write its partials into shared memory (16-byte stores), then 16
  threads hand the copy engine 4 KB each (cp.async.bulk global <- shared), wait for the copies'
  completion, and the release follows (after a proxy fence);
- red_bf16x2_v4: each CTA adds its rows into its group's one output block in L2 (16-byte vector
  reductions, red.global.add.noftz.v4.bf16x2), then a release: the partials merged where they land,
  no load back;
- red_f32_v4: the same into an fp32 block (128 KB a CTA: twice the bytes, exact sums);
- load: each CTA loads an eighth of every sibling's block (64 KB, 16-byte loads, all in flight),
  combines them (xor, a stand-in for the merge's weighted sum) and stores its 8 KB of output (the
  merge's share after the wait).
The stored values are wgmma_ptx's random nonzero bf16 pairs.
Per mode: the nanoseconds (globaltimer) from a CTA's start to its release done, median and max over
the CTAs, and the span from the first start to the last end; the median of 5 launches after a warm
one. A diagnostic for the merge's design, never a figure of the method.

Usage: python3 scripts/device/partial_write_rate.py. Writes $OUT/partial_write_rate.json.
"""
import json, os, statistics, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wgmma_ptx import RANDOM_BF16X2

CTAS, GROUP, THREADS = 128, 8, 256
BLOCK_BYTES = 64 * 512 * 2  # one CTA's bf16 partials
MODES = ("store", "store_no_fence", "bulk_store", "red_bf16x2_v4", "red_f32_v4", "load")


def kernel_source() -> str:
    """One kernel per mode: <mode>(uint8_t* own, uint8_t* group_out, long long* stamps)."""
    head = r"""#include <stdint.h>
__device__ __forceinline__ long long now() { long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
""" + RANDOM_BF16X2 + r"""// the 16-byte piece i of a CTA's partials: four random bf16 pairs
__device__ __forceinline__ uint4 piece(uint32_t i) {
  return make_uint4(random_bf16x2(4 * i), random_bf16x2(4 * i + 1), random_bf16x2(4 * i + 2), random_bf16x2(4 * i + 3));
}
"""
    chunks = BLOCK_BYTES // 16 // THREADS  # 16-byte pieces a thread
    store = f"""
  uint4* dst = reinterpret_cast<uint4*>(own + (size_t)blockIdx.x * {BLOCK_BYTES});
  for (int j = 0; j < {chunks}; ++j) {{ const uint32_t i = j * {THREADS} + threadIdx.x; dst[i] = piece(i); }}"""
    body = {
        "store": store,
        "store_no_fence": store,
        "bulk_store": f"""
  extern __shared__ __align__(128) uint4 stage[];
  for (int j = 0; j < {chunks}; ++j) {{ const uint32_t i = j * {THREADS} + threadIdx.x; stage[i] = piece(i); }}
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // the copy engine reads what the threads wrote
  __syncthreads();
  if (threadIdx.x < 16) {{
    const uint32_t src = (uint32_t)__cvta_generic_to_shared(stage) + threadIdx.x * 4096;
    uint8_t* dst = own + (size_t)blockIdx.x * {BLOCK_BYTES} + threadIdx.x * 4096;
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 4096;" :: "l"(dst), "r"(src) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    asm volatile("fence.proxy.async.global;" ::: "memory");
  }}""",
        "red_bf16x2_v4": f"""
  uint4* dst = reinterpret_cast<uint4*>(group_out + (size_t)(blockIdx.x / {GROUP}) * {BLOCK_BYTES});
  for (int j = 0; j < {chunks}; ++j) {{ const uint32_t i = j * {THREADS} + threadIdx.x; const uint4 v = piece(i);
    asm volatile("red.global.add.noftz.v4.bf16x2 [%0], {{%1, %2, %3, %4}};" :: "l"(dst + i), "r"(v.x), "r"(v.y), "r"(v.z),
                 "r"(v.w) : "memory"); }}""",
        "red_f32_v4": f"""
  float4* dst = reinterpret_cast<float4*>(group_out + (size_t)(blockIdx.x / {GROUP}) * {2 * BLOCK_BYTES});
  for (int j = 0; j < {2 * chunks}; ++j) {{ const uint32_t i = j * {THREADS} + threadIdx.x;
    asm volatile("red.global.add.v4.f32 [%0], {{%1, %2, %3, %4}};" :: "l"(dst + i), "f"(__uint_as_float(random_bf16x2(i))),
                 "f"(0.5f), "f"(0.25f), "f"(0.125f) : "memory"); }}""",
        "load": f"""
  // an eighth of each sibling's block (the rows of this CTA's share), all loads in flight
  const int g = blockIdx.x / {GROUP}, s = blockIdx.x % {GROUP};
  uint4 v[{GROUP}][{chunks // GROUP}];
  for (int k = 0; k < {GROUP}; ++k) {{
    const uint4* src = reinterpret_cast<const uint4*>(own + (size_t)(g * {GROUP} + k) * {BLOCK_BYTES}) + s * {BLOCK_BYTES // 16 // GROUP};
    for (int j = 0; j < {chunks // GROUP}; ++j) v[k][j] = __ldcg(src + j * {THREADS} + threadIdx.x); }}
  uint4* dst = reinterpret_cast<uint4*>(group_out + (size_t)g * {BLOCK_BYTES}) + s * {BLOCK_BYTES // 16 // GROUP};
  for (int j = 0; j < {chunks // GROUP}; ++j) {{ uint4 a = v[0][j];
    for (int k = 1; k < {GROUP}; ++k) {{ a.x ^= v[k][j].x; a.y ^= v[k][j].y; a.z ^= v[k][j].z; a.w ^= v[k][j].w; }}
    dst[j * {THREADS} + threadIdx.x] = a; }}""",
    }
    parts = [head]
    for mode in MODES:
        parts.append(f"""
extern "C" __global__ void __launch_bounds__({THREADS}, 1) {mode}(uint8_t* own, uint8_t* group_out, long long* stamps) {{
  __syncthreads();
  const long long t0 = now();
{body[mode]}
  __syncthreads();
  if (threadIdx.x == 0) {{
    {"" if mode == "store_no_fence" else 'asm volatile("fence.acq_rel.gpu;" ::: "memory");'}  // the arrival's release: every store above performed
    stamps[2 * blockIdx.x] = t0;
    stamps[2 * blockIdx.x + 1] = now();
  }}
}}""")
    return "\n".join(parts)


def main():
    import torch
    from cuda_entry import load_module

    dev = torch.device("cuda", 0)
    module = load_module(kernel_source(), Path("results") / "partial_write_rate" / "cubins", dev)
    own = torch.zeros(CTAS * BLOCK_BYTES, dtype=torch.uint8, device=dev)
    group_out = torch.zeros(CTAS // GROUP * 2 * BLOCK_BYTES, dtype=torch.uint8, device=dev)
    stamps = torch.zeros(2 * CTAS, dtype=torch.int64, device=dev)
    smem = 200 * 1024  # one CTA an SM
    report = []
    for mode in MODES:
        runs = []
        for rep in range(6):
            group_out.zero_()
            module.launch(mode, (CTAS, 1, 1), THREADS, smem, own.data_ptr(), group_out.data_ptr(), stamps.data_ptr())
            torch.cuda.synchronize()
            s = stamps.view(CTAS, 2).cpu()
            per_cta = (s[:, 1] - s[:, 0]).tolist()
            runs.append((statistics.median(per_cta), max(per_cta), (s[:, 1].max() - s[:, 0].min()).item()))
        runs = runs[1:]
        row = {"mode": mode, "cta_median_ns": statistics.median(r[0] for r in runs),
               "cta_max_ns": statistics.median(r[1] for r in runs), "span_ns": statistics.median(r[2] for r in runs),
               "runs": runs}
        if mode == "red_bf16x2_v4":  # the sums of 8 CTAs' random values, finite
            assert torch.isfinite(group_out.view(torch.bfloat16).float()).all()
        report.append(row)
        print(json.dumps({k: v for k, v in row.items() if k != "runs"}), flush=True)
    Path(os.environ.get("OUT", "/tmp"), "partial_write_rate.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
