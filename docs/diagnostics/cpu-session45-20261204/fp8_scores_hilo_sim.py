"""CPU simulation (no GPU): could the FP8-656 scorer read the raw e4m3 rows, with no dequantization
on its path, and still pass the harness's tolerances? The queries are split into two e4m3 parts
(hi = e4m3(q s), lo = e4m3(q s - hi), s a power of two per head), each 128-column block of a row
scored by FP8 products (m64nNk32 steps) into its own accumulator, the four blocks' sums times the
row's four scales, the RoPE part in bf16. Hopper's FP8 products are said to accumulate with about
14 bits (DeepSeek-V3's report; DeepGEMM promotes every 128 columns, as a block accumulator here
does): each k32 step's sum is cut to BITS mantissa bits, truncated or rounded, with hi and lo in
one chain a block or each in its own. Beside it, today's path (rows dequantized to bf16, q bf16)
and hi alone. Inputs as the harness draws them (B=2, H=128, top-k 2048, context 4K). The host
side is scripts/device/fp8_wgmma_precision.py's, which measures the same on the H200.

Usage: python docs/diagnostics/cpu-session45-20261204/fp8_scores_hilo_sim.py
"""
import importlib.util
import sys
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO))
from evaluators import sparse_mla as M  # noqa: E402
from evaluators.problem import Workload  # noqa: E402

_spec = importlib.util.spec_from_file_location("fp8_wgmma_precision", REPO / "scripts" / "device" / "fp8_wgmma_precision.py")
P = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(P)

PROBLEM = M.SparseMlaDecode("fp8_656")
W = Workload("sim", 2, 128, 2048, 4096)
POOL = PROBLEM.new_pool(torch.device("cpu"), [W])


def block_sums(queries: str, q, k8, bits, mode, separate):
    """(block sums [heads, rows, 4] in units of q s, s [heads, 1])."""
    if queries == "bf16":  # today: the rows dequantized (exact), bf16 queries
        return P.exact_block_sums(q, k8), torch.ones(q.shape[0], 1, dtype=torch.float64)
    hi, lo, s_q = P.split_queries(q)
    if queries == "hi":
        return P.exact_block_sums(hi, k8), s_q
    if bits is None:
        return P.exact_block_sums(hi, k8) + P.exact_block_sums(lo, k8), s_q
    return P.model_block_sums([hi, lo], k8, bits, chain=not separate, mode=mode), s_q


def run(seed: int, queries: str, bits: int | None = None, mode: str = "trunc", separate: bool = False):
    inp = PROBLEM.make_inputs(W, torch.Generator().manual_seed(seed), POOL)
    ref_out, ref_lse = M.reference(inp)
    out, lse = torch.empty_like(ref_out, dtype=torch.bfloat16), torch.empty_like(ref_lse, dtype=torch.float32)
    for b in range(W.batch):
        k8, scales, rope, values = P.gathered_rows(inp.kv_cache.view(-1, 656)[inp.indices[b].long()])
        q = inp.q[b].double()
        sums, s_q = block_sums(queries, q[:, :512], k8, bits, mode, separate)
        s = P.scores_from_block_sums(sums, s_q, scales, q[:, 512:], rope, inp.sm_scale)
        out[b], lse[b] = P.outputs_from_scores(s, values)
    failure = M.compare("out", out, ref_out, M.OUT_TOL, row_scaled=True) or M.compare("lse", lse, ref_lse, M.LSE_TOL)
    return (failure or "pass")[:70], M.rel_l2(out, ref_out), M.rel_l2(lse, ref_lse), \
        float((lse.double() - ref_lse).abs().max())


if __name__ == "__main__":
    cases = [("today: rows dequantized to bf16, q bf16", dict(queries="bf16")),
             ("hi + lo, exact sums", dict(queries="hilo")),
             ("hi alone, exact sums", dict(queries="hi"))]
    for bits in (13, 14):
        for mode in ("trunc", "round"):
            for separate in (False, True):
                cases.append((f"hi + lo, sums cut to {bits} bits ({mode}), "
                              f"{'hi and lo apart' if separate else 'one chain a block'}",
                              dict(queries="hilo", bits=bits, mode=mode, separate=separate)))
    print("| path | seed | verdict | out rel L2 | lse rel L2 | lse max abs error |\n|---|---|---|---|---|---|")
    for name, kw in cases:
        for seed in (1, 2):
            verdict, out_l2, lse_l2, lse_max = run(seed, **kw)
            print(f"| {name} | {seed} | {verdict} | {out_l2:.3g} | {lse_l2:.3g} | {lse_max:.3g} |")
