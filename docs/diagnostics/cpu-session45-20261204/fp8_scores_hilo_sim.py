"""CPU simulation (no GPU): could the FP8-656 scorer read the raw e4m3 rows, with no dequantization
on its path, and still pass the harness's tolerances? The queries are split into two e4m3 parts
(hi = e4m3(q s), lo = e4m3(q s - hi), s a power of two per head), each 128-column block of a row
scored by FP8 products (m64nNk32 steps) into its own accumulator, the four blocks' sums times the
row's four scales, the RoPE part in bf16. Hopper's FP8 products are said to accumulate with about
14 bits (DeepSeek-V3's report; DeepGEMM promotes every 128 columns, as a block accumulator here
does): each k32 step's sum is cut to BITS mantissa bits, truncated or rounded, with hi and lo in
one chain a block or each in its own. Beside it, today's path (rows dequantized to bf16, q bf16)
and hi alone. Inputs as the harness draws them (B=2, H=128, top-k 2048, context 4K).

Usage: python docs/diagnostics/cpu-session45-20261204/fp8_scores_hilo_sim.py
"""
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from evaluators import sparse_mla as M  # noqa: E402
from evaluators.problem import Workload  # noqa: E402

E4M3 = torch.float8_e4m3fn
PROBLEM = M.SparseMlaDecode("fp8_656")
W = Workload("sim", 2, 128, 2048, 4096)
POOL = PROBLEM.new_pool(torch.device("cpu"), [W])


def cut(x: torch.Tensor, bits: int | None, mode: str) -> torch.Tensor:
    if bits is None:
        return x
    m, e = torch.frexp(x)
    f = m * 2.0 ** (bits + 1)
    return torch.ldexp((torch.trunc(f) if mode == "trunc" else torch.round(f)) / 2.0 ** (bits + 1), e)


def run(seed: int, queries: str, bits: int | None = None, mode: str = "trunc", separate: bool = False):
    inp = PROBLEM.make_inputs(W, torch.Generator().manual_seed(seed), POOL)
    ref_out, ref_lse = M.reference(inp)
    idx = inp.indices.clamp(min=0).long()
    raw = inp.kv_cache.view(-1, 656)[idx]
    k8 = raw[..., :512].contiguous().view(E4M3).double().view(*idx.shape, 4, 128)
    scales = raw[..., 512:528].contiguous().view(torch.float32).double()
    rope = raw[..., 528:].contiguous().view(torch.bfloat16).double()
    q = inp.q.double()
    qn, qr = q[..., :512].reshape(*q.shape[:2], 4, 128), q[..., 512:]
    if queries == "bf16":
        s_q, parts = torch.ones(*q.shape[:2], 1, 1, dtype=torch.float64), [qn]
    else:
        s_q = torch.exp2(torch.floor(torch.log2(448.0 / qn.abs().amax(dim=(-1, -2), keepdim=True))))
        hi = (qn * s_q).to(E4M3).double()
        parts = [hi] if queries == "hi" else [hi, (qn * s_q - hi).to(E4M3).double()]
    chains = [[p] for p in parts] if separate else [parts]
    blocks = 0
    for chain in chains:
        acc = torch.zeros(*q.shape[:2], idx.shape[1], 4, dtype=torch.float64)
        for part in chain:
            for step in range(4):
                cols = slice(32 * step, 32 * step + 32)
                acc = cut(acc + torch.einsum("bhgc,bkgc->bhkg", part[..., cols], k8[..., cols]), bits, mode)
        blocks = blocks + acc.float().double()  # fp32 registers from here on
    s_nope = ((blocks / s_q.squeeze(-1)[..., None, :]) * scales[:, None]).sum(-1)
    s = (s_nope + torch.einsum("bhd,bkd->bhk", qr, rope)).float() * inp.sm_scale
    lse = torch.logsumexp(s, dim=-1)
    p = torch.exp(s - lse[..., None]).to(torch.bfloat16).double()
    out = torch.einsum("bhk,bkd->bhd", p, (k8 * scales[..., None]).view(*idx.shape, 512)).float().to(torch.bfloat16)
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
