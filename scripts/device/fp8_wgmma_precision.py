"""Are the H200's FP8 products precise enough to score FP8-656 rows raw? The lead of the
forty-fifth session (docs/diagnostics/cpu-session45-20261204/README.md): the queries split into
two e4m3 parts (hi = e4m3(q s), lo = e4m3(q s - hi), s a power of two per head), each 128-column
block of a gathered row scored by m64n32k32 e4m3 products from shared memory into its own fp32
accumulator, the blocks' sums times the row's four scales. Hopper's FP8 products are said to keep
about 14 bits in their sums, and a CPU model that truncates each k32 step's sum to 13 bits fails
the LSE tolerance with hi and lo in one chain a block; this measures the hardware.

For a batch drawn as the harness draws it, a kernel (one warpgroup a 32-row tile) writes each
block's sums three ways: one chain (hi's four k32 steps, then lo's), and hi and lo each in a chain
of its own. The host adds the scales and the RoPE part (float64), then the softmax (fp32 scores,
bf16 P and output) and checks out and lse against the harness's float64 reference with its
tolerances; beside it the block sums' errors against exact float64 sums, and what the CPU
truncation models (13 and 14 bits) give on the same data.

Usage: python3 scripts/device/fp8_wgmma_precision.py [--batch 2] [--context 4096] [--seeds 2]
Writes $OUT/fp8_wgmma_precision.json. A diagnostic, never a figure of the method.
"""
import argparse, json, os, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wgmma_ptx import SW128_DESC

HEADS, ROWS, BLOCKS, BLOCK_COLS = 64, 32, 4, 128  # a CTA's heads and tile rows; a row's scale blocks
MODES = ("chain", "hi", "lo")                     # the kernel's outputs, in this order
SMEM_BYTES = 2 * BLOCKS * HEADS * 128 + BLOCKS * ROWS * 128 + 1024

# (a k32 step of e4m3 is the next 32 bytes of each row of a K-major operand: sw128_desc, wgmma_ptx.py)
KERNEL = "#include <stdint.h>\n" + SW128_DESC + r"""
__device__ __forceinline__ void stage(uint32_t base, const uint8_t* src, int rows, int block_stride) {
  // rows x 512 bytes (four 128-byte blocks a row) into four swizzled blocks of rows x 128 bytes
  for (int c = threadIdx.x; c < rows * 32; c += blockDim.x) {
    const int r = c / 32, chunk = c % 32, b = chunk / 8, j = chunk % 8;
    const uint4 v = *reinterpret_cast<const uint4*>(src + (size_t)r * 512 + 16 * chunk);
    const uint32_t at = base + b * block_stride + r * 128 + ((j ^ (r & 7)) << 4);
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(at), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
  }
}
// the four k32 steps of one block of one query part, added to d
__device__ __forceinline__ void block_steps(float (&d)[16], uint32_t a, uint32_t b) {
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const uint64_t da = sw128_desc(a + 32 * k), db = sw128_desc(b + 32 * k);
    asm volatile("wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, 1, 1, 1;\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                   "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
                   "+f"(d[15])
                 : "l"(da), "l"(db));
  }
}
__device__ __forceinline__ void store_sums(float* out, const float (&d)[16]) {
  // out: [64 heads][32 rows] of one (tile, block); the m64n32 accumulator's fragment
  const int t = threadIdx.x, row = 16 * (t >> 5) + ((t & 31) >> 2), col = 2 * (t & 3);
#pragma unroll
  for (int j = 0; j < 4; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) out[(row + 8 * (e >> 1)) * 32 + 8 * j + col + (e & 1)] = d[4 * j + e];
}
// one chain: zeros, then the parts' steps in order, waited for, stored
__device__ __forceinline__ void chain(float* out, uint32_t a0, uint32_t a1, int parts, uint32_t b) {
  float d[16];
#pragma unroll
  for (int i = 0; i < 16; ++i) d[i] = 0.f;
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");  // ends ptxas's stage before the zeros' use
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  block_steps(d, a0, b);
  if (parts == 2) block_steps(d, a1, b);
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  store_sums(out, d);
}
// q_hi, q_lo: [64 heads][512] e4m3; k8: [tiles x 32 rows][512] e4m3; out: [3 modes][tiles][4 blocks][64][32]
extern "C" __global__ void __launch_bounds__(128, 1) fp8_block_sums(const uint8_t* q_hi, const uint8_t* q_lo,
                                                                      const uint8_t* k8, float* out, int tiles) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  uint8_t* smem = smem_raw + ((1024 - ((uint32_t)__cvta_generic_to_shared(smem_raw) & 1023)) & 1023);
  const uint32_t base = (uint32_t)__cvta_generic_to_shared(smem);
  const uint32_t hi = base, lo = base + 4 * 64 * 128, rows = base + 8 * 64 * 128;
  const int tile = blockIdx.x;
  stage(hi, q_hi, 64, 64 * 128);
  stage(lo, q_lo, 64, 64 * 128);
  stage(rows, k8 + (size_t)tile * 32 * 512, 32, 32 * 128);
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
#pragma unroll 1
  for (int b = 0; b < 4; ++b) {
    const uint32_t a_hi = hi + b * 64 * 128, a_lo = lo + b * 64 * 128, kb = rows + b * 32 * 128;
    chain(out + ((size_t)(0 * tiles + tile) * 4 + b) * 64 * 32, a_hi, a_lo, 2, kb);  // hi's steps, then lo's
    chain(out + ((size_t)(1 * tiles + tile) * 4 + b) * 64 * 32, a_hi, a_lo, 1, kb);  // hi alone
    chain(out + ((size_t)(2 * tiles + tile) * 4 + b) * 64 * 32, a_lo, a_hi, 1, kb);  // lo alone
  }
}
"""


def kernel_source() -> str:
    return KERNEL


def gathered_rows(raw):
    """[rows, 656] uint8 FP8-656 rows -> (k8 [rows, 512] e4m3, scales [rows, 4] float64, rope
    [rows, 64] bf16, values [rows, 512] float64: the dequantized latent part, exact)."""
    import torch

    k8 = raw[:, :512].contiguous().view(torch.float8_e4m3fn)
    scales = raw[:, 512:528].contiguous().view(torch.float32).double()
    rope = raw[:, 528:].contiguous().view(torch.bfloat16)
    values = k8.double().view(-1, BLOCKS, BLOCK_COLS).mul(scales[..., None]).view(-1, 512)
    return k8, scales, rope, values


def split_queries(q):
    """[heads, 512] float64 -> (hi, lo) e4m3 tensors and the per-head power-of-two scale s: hi + lo
    is q s to bf16's precision."""
    import torch

    s = torch.exp2(torch.floor(torch.log2(448.0 / q.abs().amax(dim=-1, keepdim=True))))
    hi = (q * s).to(torch.float8_e4m3fn)
    lo = (q * s - hi.double()).to(torch.float8_e4m3fn)
    return hi, lo, s


def exact_block_sums(part, k8):
    """float64 [heads, rows, 4]: each 128-column block's sum of part x k8 (both e4m3 tensors)."""
    import torch

    return torch.einsum("hgc,kgc->hkg", part.double().view(part.shape[0], BLOCKS, BLOCK_COLS),
                        k8.double().view(k8.shape[0], BLOCKS, BLOCK_COLS))


def model_block_sums(parts, k8, bits: int, chain: bool, mode: str = "trunc"):
    """float64 [heads, rows, 4]: the CPU model of the products: each k32 step's sum cut to `bits`
    mantissa bits (mode "trunc": toward zero, "round": to nearest); hi and lo in one chain a
    block, or each in its own (summed in fp32)."""
    import torch

    rounding = torch.trunc if mode == "trunc" else torch.round

    def cut(x):
        m, e = torch.frexp(x)
        return torch.ldexp(rounding(m * 2.0 ** (bits + 1)) / 2.0 ** (bits + 1), e)

    kv = k8.double().view(k8.shape[0], BLOCKS, BLOCK_COLS)
    chains = [parts] if chain else [[p] for p in parts]
    total = 0
    for members in chains:
        acc = torch.zeros(parts[0].shape[0], k8.shape[0], BLOCKS, dtype=torch.float64, device=k8.device)
        for p in members:
            pv = p.double().view(p.shape[0], BLOCKS, BLOCK_COLS)
            for step in range(4):
                cols = slice(32 * step, 32 * step + 32)
                acc = cut(acc + torch.einsum("hgc,kgc->hkg", pv[..., cols], kv[..., cols]))
        total = total + acc.float().double()
    return total


def scores_from_block_sums(sums, s_q, scales, q_rope, rope, sm_scale):
    """fp32 scores [heads, rows]: the blocks' sums (float64 [heads, rows, 4] of q s x e4m3) over s,
    times the rows' scales [rows, 4], plus the RoPE part (bf16 x bf16, float64 here), times the
    softmax scale."""
    s_nope = (sums / s_q[..., None] * scales[None]).sum(-1)
    return ((s_nope + q_rope.double() @ rope.double().T).float() * sm_scale)


def outputs_from_scores(s, values):
    """(out [heads, 512] bf16, lse [heads] fp32) of fp32 scores over all rows: P in bf16 as the
    kernels keep it, the values' products in fp32."""
    import torch

    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse[..., None]).to(torch.bfloat16).double()
    return (p @ values.double()).float().to(torch.bfloat16), lse


def main():
    import numpy as np
    import torch
    from cuda_entry import load_module
    from evaluators import sparse_mla as M
    from evaluators.problem import Workload

    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--context", type=int, default=4096)
    ap.add_argument("--seeds", type=int, default=2)
    args = ap.parse_args()
    dev = torch.device("cuda", 0)
    module = load_module(kernel_source(), Path("results") / "fp8_wgmma_precision" / "cubins", dev)
    problem = M.SparseMlaDecode("fp8_656")
    w = Workload("precision", args.batch, 128, 2048, args.context)
    pool = problem.new_pool(dev, [w])
    report = []
    for seed in range(1, args.seeds + 1):
        inp = problem.make_inputs(w, torch.Generator(dev).manual_seed(seed), pool)
        ref_out, ref_lse = M.reference(inp)
        outs, lses = {}, {}  # kind of block sums -> the batch's out and lse
        sum_errors = {"chain": [], "apart": []}
        for b in range(args.batch):
            # every index valid (context >= top-k)
            k8, scales, rope, values = gathered_rows(inp.kv_cache.view(-1, 656)[inp.indices[b].long()])
            tiles = k8.shape[0] // ROWS
            for hb in range(2):
                heads = slice(64 * hb, 64 * hb + 64)
                q = inp.q[b, heads].double()
                hi, lo, s_q = split_queries(q[:, :512])
                out = torch.empty(3 * tiles * BLOCKS * HEADS * ROWS, dtype=torch.float32, device=dev)
                module.launch("fp8_block_sums", (tiles, 1, 1), 128, SMEM_BYTES, hi.view(torch.uint8).data_ptr(),
                              lo.view(torch.uint8).data_ptr(), k8.view(torch.uint8).data_ptr(), out.data_ptr(),
                              np.int32(tiles))
                torch.cuda.synchronize()
                # [mode][tile][block][head][row] -> [mode][head][tile * 32 + row][block]
                hw = out.view(3, tiles, BLOCKS, HEADS, ROWS).permute(0, 3, 1, 4, 2).reshape(3, HEADS, -1, BLOCKS).double()
                exact = exact_block_sums(hi, k8) + exact_block_sums(lo, k8)
                sums = {"hardware, one chain": hw[0], "hardware, hi and lo apart": (hw[1].float() + hw[2].float()).double(),
                        "model 13 bits, one chain": model_block_sums([hi, lo], k8, 13, True),
                        "model 13 bits, apart": model_block_sums([hi, lo], k8, 13, False),
                        "model 14 bits, one chain": model_block_sums([hi, lo], k8, 14, True),
                        "model 14 bits, apart": model_block_sums([hi, lo], k8, 14, False),
                        "exact sums": exact}
                scale_of = exact.abs().amax()
                sum_errors["chain"].append(float((hw[0] - exact).abs().max() / scale_of))
                sum_errors["apart"].append(float((sums["hardware, hi and lo apart"] - exact).abs().max() / scale_of))
                for kind, block_sums in sums.items():
                    s = scores_from_block_sums(block_sums, s_q, scales, q[:, 512:], rope, inp.sm_scale)
                    o, l = outputs_from_scores(s, values)
                    outs.setdefault(kind, torch.empty_like(ref_out, dtype=torch.bfloat16))[b, heads] = o
                    lses.setdefault(kind, torch.empty_like(ref_lse, dtype=torch.float32))[b, heads] = l
        for kind in outs:
            failure = (M.compare("out", outs[kind], ref_out, M.OUT_TOL, row_scaled=True)
                       or M.compare("lse", lses[kind], ref_lse, M.LSE_TOL))
            row = {"seed": seed, "kind": kind, "verdict": failure or "pass",
                   "out_rel_l2": M.rel_l2(outs[kind], ref_out), "lse_rel_l2": M.rel_l2(lses[kind], ref_lse),
                   "lse_max_abs_error": float((lses[kind].double() - ref_lse).abs().max())}
            report.append(row)
            print(json.dumps(row), flush=True)
        row = {"seed": seed, "block_sums_max_error_over_largest": {k: max(v) for k, v in sum_errors.items()}}
        report.append(row)
        print(json.dumps(row), flush=True)
    Path(os.environ.get("OUT", "/tmp"), "fp8_wgmma_precision.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
