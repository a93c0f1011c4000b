"""DeepSeek-V3.2 sparse MLA decode: shapes, inputs, float64 reference, tolerances, roofline.

The kernel sees, per query token, 128 heads of a 576-wide query (512 latent + 64 RoPE), one
latent KV head of 576 stored in a cache paged in blocks of 64 tokens, and the indices of the
top-k (2048) selected rows, already mapped through the block table (``block * 64 + offset``,
-1 = invalid). It returns the 512-wide latent output per head (bf16) and the natural-log LSE
(fp32). A token whose indices are all invalid gets out = 0 and lse = +inf (FlashMLA's rule).
The cache holds bf16 rows (576 x 2 B) or, with ``kv_format="fp8_656"``, DeepSeek's 656-byte
rows: 512 e4m3 values, 4 fp32 power-of-two scales (one per 128 values), 64 bf16 RoPE values.
As in FlashMLA's tests, the reference runs on the dequantized cache, so a kernel is judged on
its arithmetic, not on the format's rounding.
Facts: ../shared/reference/sparse_mla_facts.md, sections 1.5, 1.7, 2.1 and 3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from evaluators.problem import Tolerance, Workload
from evaluators.sparse_mla_spec import D_QK, ENTRY_ARGS, KV_ROW_BYTES, NAME, check_args

D_V = 512
PAGE = 64
SOFTMAX_SCALE = 0.135234  # 192**-0.5 * (1 + 0.1 ln 40)**2, the model's value with YaRN
FP8_GROUP = 128

OUT_TOL = Tolerance(abs_tol=1e-3, rel_tol=2.01 / 128, rel_l2=1e-2)
LSE_TOL = Tolerance(abs_tol=1e-3, rel_tol=8.01 / 65536, rel_l2=1e-4)


@dataclass
class Inputs:
    q: torch.Tensor         # [B, H, 576] bf16
    kv_cache: torch.Tensor  # [blocks, 64, 576] bf16, or [blocks, 64, 656] uint8 (fp8_656)
    indices: torch.Tensor   # [B, topk] int32
    sm_scale: float


class SparseMlaDecode:
    name = NAME
    entry_args = ENTRY_ARGS  # what `call` passes, in order

    def __init__(self, kv_format: str = "bf16"):
        check_args(kv_format)
        self.kv_format = kv_format
        self.row_bytes = KV_ROW_BYTES[kv_format]
        self.pool_key = f"{self.name}:{kv_format}"

    def workloads(self, device_kind: str) -> list[Workload]:
        if device_kind == "cpu":
            # Interpreter scale: the same structure (many heads, top-k >> tile, long context).
            return [Workload(f"b{b}_ctx{c // 1024}k", b, 64, 256, c) for b in (1, 4) for c in (1024, 4096)]
        return [Workload(f"b{b}_ctx{c // 1024}k", b, 128, 2048, c)
                for b in (1, 8, 64, 128) for c in (4096, 32768, 131072)]

    def verify_shapes(self, device_kind: str) -> list[Workload]:
        largest = max(self.workloads(device_kind), key=lambda w: (w.batch * w.context, w.batch))
        if device_kind == "cpu":
            return [Workload("short_ctx_invalid", 3, 64, 256, 200, invalid_fraction=0.1, empty_rows=1),
                    largest,
                    Workload("sparse_invalid", 2, 64, 256, 2048, invalid_fraction=0.3)]
        # b5_invalid: a batch between the timed ones, which takes a split count that does not
        # divide a CTA's 64 heads on an H200's 132 SMs (11, where B=8 takes 8): the CUDA
        # template's merges have code of their own for such counts, and no timed batch reaches it
        return [Workload("short_ctx_invalid", 3, 128, 2048, 1000, invalid_fraction=0.1, empty_rows=1),
                largest,
                Workload("sparse_invalid", 8, 128, 2048, 32768, invalid_fraction=0.25),
                Workload("b5_invalid", 5, 128, 2048, 8192, invalid_fraction=0.1)]

    def e2e_workloads(self, device_kind: str) -> list[Workload]:
        """The workloads timed inside the decode layer (evaluators/decode_layer.py) as well as
        alone, at a middling context: one token; eight, the small batch that kernels split across
        the SMs and merge (on an H100 a merge among the splits themselves took 5 us more inside
        the layer than a separate merge kernel at B=8, and the same alone, until its code was
        split into an entry a split count: docs/BENCHMARKS.md, sixtieth and sixty-third
        sessions); and a batch that fills the GPU."""
        wanted = ("b1_ctx1k",) if device_kind == "cpu" else ("b1_ctx32k", "b8_ctx32k", "b64_ctx32k")
        return [w for w in self.workloads(device_kind) if w.name in wanted]

    def launch_shapes(self, device_kind: str) -> list[tuple[int, int, int]]:
        """(batch, heads, top-k) of every call the harness makes: the timed workloads, the
        verification shapes and the decode layer's."""
        shapes = self.workloads(device_kind) + self.verify_shapes(device_kind) + self.e2e_workloads(device_kind)
        return sorted({(w.batch, w.heads, w.topk) for w in shapes})

    def build_variables(self, language: str, source: str, sm_counts: tuple[int, ...]) -> dict:
        """A template's build variables for this problem's launches on CUDA GPUs of ``sm_counts``
        SMs (see engine/template.py): for a CUDA genome with split-kernel entries of their own,
        LAUNCHED_SPLITS, the split counts those launches pick (H200 or H100 SXM: 8, 11 (13 in
        32-row steps), 16 (22) and 32 of the siblings' ten to twelve), so that its build leaves the
        other counts' entries out.
        Empty where nothing can be left out, or where the source's launch line is unusable (its
        evaluation then says why)."""
        if language != "cuda" or not sm_counts:
            return {}
        from evaluators.sparse_mla_cuda import ContractError, launched_split_counts, parse_contract

        try:
            contract = parse_contract(source)
        except ContractError:
            return {}
        if not contract.split_kernels:
            return {}
        return {"LAUNCHED_SPLITS": list(launched_split_counts(contract, self.launch_shapes("cuda"), sm_counts))}

    @staticmethod
    def decode_layer(w: Workload, device: torch.device, gen: torch.Generator):
        from evaluators.decode_layer import INTERPRETER, MODEL, DecodeLayer

        return DecodeLayer(INTERPRETER if device.type == "cpu" else MODEL, w.heads, w.batch, device, gen)

    def flops(self, w: Workload) -> float:
        return 2.0 * w.batch * w.heads * self.valid_rows(w) * (D_QK + D_V)

    def bytes_moved(self, w: Workload) -> float:
        per_token = (self.valid_rows(w) * self.row_bytes + w.heads * D_QK * 2 + w.heads * D_V * 2
                     + w.topk * 4 + w.heads * 4)
        return float(w.batch * per_token)

    @staticmethod
    def valid_rows(w: Workload) -> int:
        return min(w.topk, w.context)

    @staticmethod
    def pool_rows(workloads: list[Workload]) -> int:
        return max(w.batch * _blocks_per_token(w) * PAGE for w in workloads)

    # -- what the harness calls ------------------------------------------------------------
    def new_pool(self, device: torch.device, workloads: list[Workload] | None = None) -> torch.Tensor:
        """Cache rows for every workload and verification shape (or only for ``workloads``)."""
        shapes = workloads or self.workloads(device.type) + self.verify_shapes(device.type)
        # Filled once: rows no call gathers still hold finite values (a kernel may read row 0
        # for an invalid slot and weight it by zero; garbage there could be NaN).
        rows = self.pool_rows(shapes)
        if self.kv_format == "bf16":
            return torch.empty(rows, D_QK, dtype=torch.bfloat16, device=device).normal_()
        pool = torch.empty(rows, self.row_bytes, dtype=torch.uint8, device=device)
        step = 1 << 20  # quantize in slices: a float32 copy of the whole pool would not fit
        for r0 in range(0, rows, step):
            r1 = min(rows, r0 + step)
            pool[r0:r1] = quantize_fp8_656(torch.randn(r1 - r0, D_QK, device=device))
        return pool

    def make_inputs(self, w: Workload, gen: torch.Generator, pool: torch.Tensor) -> Inputs:
        return make_inputs(w, gen, pool.device, pool)

    def placeholder_inputs(self, w: Workload, device: torch.device) -> Inputs:
        # Shapes, dtypes and strides of a real call (one cache block: only its row stride
        # reaches a kernel); contents never written, so no kernel runs to make them.
        cache = (torch.empty(1, PAGE, D_QK, dtype=torch.bfloat16, device=device) if self.kv_format == "bf16"
                 else torch.empty(1, PAGE, self.row_bytes, dtype=torch.uint8, device=device))
        return Inputs(torch.empty(w.batch, w.heads, D_QK, dtype=torch.bfloat16, device=device), cache,
                      torch.empty(w.batch, w.topk, dtype=torch.int32, device=device), SOFTMAX_SCALE)

    @staticmethod
    def placeholder_outputs(w: Workload, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        return (torch.empty(w.batch, w.heads, D_V, dtype=torch.bfloat16, device=device),
                torch.empty(w.batch, w.heads, dtype=torch.float32, device=device))

    @staticmethod
    def poisoned_outputs(w: Workload, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        # NaN everywhere: an element the kernel does not write cannot pass the check.
        return (torch.full((w.batch, w.heads, D_V), float("nan"), dtype=torch.bfloat16, device=device),
                torch.full((w.batch, w.heads), float("nan"), dtype=torch.float32, device=device))

    @staticmethod
    def inputs_of(inp: Inputs) -> tuple[torch.Tensor, ...]:
        return (inp.q, inp.kv_cache, inp.indices)

    @staticmethod
    def poison(outputs: tuple[torch.Tensor, ...]) -> None:
        for t in outputs:
            t.fill_(float("nan"))

    @staticmethod
    def call(fn, inp: Inputs, outputs: tuple[torch.Tensor, torch.Tensor]) -> None:
        fn(inp.q, inp.kv_cache, inp.indices, inp.sm_scale, *outputs)  # entry_args

    @staticmethod
    def refill(inp: Inputs, w: Workload, gen: torch.Generator, pool: torch.Tensor) -> None:
        """New values in the inputs' own memory (query, indices, the rows they name): a captured
        graph replays on whatever its inputs then hold."""
        fresh = make_inputs(w, gen, pool.device, pool)
        assert fresh.kv_cache.data_ptr() == inp.kv_cache.data_ptr() and fresh.kv_cache.shape == inp.kv_cache.shape
        inp.q.copy_(fresh.q)
        inp.indices.copy_(fresh.indices)

    @staticmethod
    def check(inp: Inputs, outputs: tuple[torch.Tensor, torch.Tensor]) -> tuple[str | None, dict]:
        """(failure or None, error figures) of the outputs against the float64 reference."""
        ref_out, ref_lse = reference(inp)
        out, lse = outputs
        errors = {"out_rel_l2": rel_l2(out, ref_out), "lse_rel_l2": rel_l2(lse, ref_lse)}
        failure = compare("out", out, ref_out, OUT_TOL, row_scaled=True) or compare("lse", lse, ref_lse, LSE_TOL)
        return failure, errors


def _blocks_per_token(w: Workload) -> int:
    return math.ceil(w.context / PAGE)


def make_inputs(w: Workload, gen: torch.Generator, device: torch.device,
                pool: torch.Tensor) -> Inputs:
    """Fresh inputs for one call: query, block table, top-k indices and the cache rows they name.

    ``pool`` is a flat [rows, 576] bf16 (or [rows, 656] uint8 fp8_656) buffer reused across
    calls so that the 128K-context workloads do not reallocate 19 GB each time. Only the rows
    the indices gather are redrawn (the output depends on nothing else): drawing the whole
    19 GB cache for every call cost more than timing most candidates.
    """
    n_blocks = w.batch * _blocks_per_token(w)
    flat = pool[: n_blocks * PAGE]
    indices = _indices(w, gen, device, n_blocks)
    gathered = indices[indices >= 0].long()  # distinct: tokens are distinct and blocks disjoint
    rows = torch.randn(gathered.numel(), D_QK, generator=gen, device=device)
    flat[gathered] = rows.to(torch.bfloat16) if pool.dtype == torch.bfloat16 else quantize_fp8_656(rows)
    q = torch.randn(w.batch, w.heads, D_QK, generator=gen, device=device).to(torch.bfloat16)
    return Inputs(q, flat.view(n_blocks, PAGE, flat.shape[-1]), indices, SOFTMAX_SCALE)


def quantize_fp8_656(x: torch.Tensor) -> torch.Tensor:
    """[n, 576] float -> [n, 656] uint8 rows in DeepSeek-V3.2's format (FlashMLA's tests/quant.py
    recipe): per 128 latent values a power-of-two scale 2^ceil(log2(amax / 448)), the values
    divided by it as e4m3; the 64 RoPE values as bf16."""
    n = x.shape[0]
    nope = x[:, :D_V].float().view(n, D_V // FP8_GROUP, FP8_GROUP)
    amax = nope.abs().amax(dim=-1)
    scale = torch.exp2(torch.ceil(torch.log2(torch.clamp(amax / 448.0, min=1e-4))))
    values = (nope / scale[..., None]).to(torch.float8_e4m3fn).view(n, D_V).view(torch.uint8)
    scales = scale.float().contiguous().view(torch.uint8)
    rope = x[:, D_V:].to(torch.bfloat16).contiguous().view(torch.uint8)
    return torch.cat([values, scales, rope], dim=1)


def dequantize_fp8_656(rows: torch.Tensor) -> torch.Tensor:
    """[..., 656] uint8 -> [..., 576] float32 (exact: e4m3 times a power of two)."""
    flat = rows.reshape(-1, rows.shape[-1])
    values = flat[:, :D_V].contiguous().view(torch.float8_e4m3fn).float().view(-1, D_V // FP8_GROUP, FP8_GROUP)
    scales = flat[:, D_V:D_V + 16].contiguous().view(torch.float32)
    rope = flat[:, D_V + 16:].contiguous().view(torch.bfloat16).float()
    out = torch.cat([(values * scales[..., None]).view(-1, D_V), rope], dim=1)
    return out.view(*rows.shape[:-1], D_QK)


def _gather(kv_cache: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    """The cache rows ``idx`` names, as 576 values each (fp8_656 rows dequantized)."""
    rows = kv_cache.view(-1, kv_cache.shape[-1])[idx]
    return dequantize_fp8_656(rows) if kv_cache.dtype == torch.uint8 else rows


def _indices(w: Workload, gen: torch.Generator, device: torch.device, n_blocks: int) -> torch.Tensor:
    per_token = _blocks_per_token(w)
    block_table = torch.randperm(n_blocks, generator=gen, device=device).view(w.batch, per_token)
    k = min(w.topk, w.context)
    # topk of uniform keys = k distinct tokens of the context, in random order
    keys = torch.rand(w.batch, w.context, generator=gen, device=device)
    tokens = keys.topk(k, dim=1).indices
    rows = block_table.gather(1, tokens // PAGE) * PAGE + tokens % PAGE
    idx = torch.full((w.batch, w.topk), -1, dtype=torch.int32, device=device)
    idx[:, :k] = rows.to(torch.int32)
    if w.invalid_fraction:
        drop = torch.rand(w.batch, w.topk, generator=gen, device=device) < w.invalid_fraction
        idx[drop] = -1
    if w.empty_rows:
        idx[: w.empty_rows] = -1
    return idx


def reference(inp: Inputs, chunk: int = 4) -> tuple[torch.Tensor, torch.Tensor]:
    """float64 out [B,H,512] and lse [B,H]; chunked over the batch to bound memory."""
    outs, lses = [], []
    for b0 in range(0, inp.q.shape[0], chunk):
        idx = inp.indices[b0:b0 + chunk]
        valid = idx >= 0
        rows = _gather(inp.kv_cache, idx.clamp(min=0).long()).double()  # [b, k, 576]
        s = torch.einsum("bhd,bkd->bhk", inp.q[b0:b0 + chunk].double(), rows) * inp.sm_scale
        s = s.masked_fill(~valid[:, None, :], float("-inf"))
        lse = torch.logsumexp(s, dim=-1)
        empty = ~valid.any(dim=-1)
        p = torch.exp(s - lse[..., None].masked_fill(empty[:, None, None], 0.0))
        out = torch.einsum("bhk,bkd->bhd", p.nan_to_num(0.0), rows[..., :D_V])
        out[empty] = 0.0
        lse[empty] = float("inf")
        outs.append(out)
        lses.append(lse)
    return torch.cat(outs), torch.cat(lses)


def compare(name: str, got: torch.Tensor, ref: torch.Tensor, tol: Tolerance,
            row_scaled: bool = False) -> str | None:
    """None when ``got`` passes, else one line saying what failed.

    An element passes if |got - ref| <= abs_tol + rel_tol * scale, where scale is |ref| or,
    with ``row_scaled``, the largest |ref| of its row (last dimension): a bf16 output of a
    softmax-weighted sum carries rounding of the row's largest terms, not of its own value.
    """
    g = got.double()
    if torch.isnan(g).any():
        n = int(torch.isnan(g).sum())
        return f"{name}: {n} of {g.numel()} elements are NaN (unwritten or invalid)"
    inf_ref, inf_got = torch.isinf(ref), torch.isinf(g)
    if not torch.equal(inf_ref, inf_got) or not torch.equal(ref[inf_ref], g[inf_got]):
        return f"{name}: infinities differ from the reference ({int(inf_got.sum())} vs {int(inf_ref.sum())})"
    fin = ~inf_ref
    r = ref.masked_fill(inf_ref, 0.0)
    err = (g.masked_fill(inf_got, 0.0) - r).abs()
    scale = r.abs().amax(dim=-1, keepdim=True).expand_as(r) if row_scaled else r.abs()
    bad = (err > tol.abs_tol + tol.rel_tol * scale) & fin
    if bad.any():
        i = int(err.masked_fill(~bad, -1).flatten().argmax())
        return (f"{name}: {int(bad.sum())} of {int(fin.sum())} elements out of tolerance "
                f"(worst got {float(g.flatten()[i]):.6g} want {float(r.flatten()[i]):.6g})")
    rel = rel_l2(got, ref)
    if rel > tol.rel_l2:
        return f"{name}: relative L2 error {rel:.3g} above {tol.rel_l2:g}"
    return None


def rel_l2(got: torch.Tensor, ref: torch.Tensor) -> float:
    fin = ~torch.isinf(ref)
    g, r = got.double()[fin], ref[fin]
    norm = float(r.norm())
    return float((g - r).norm()) / norm if norm > 0 else 0.0


def torch_reference_path(q: torch.Tensor, kv_cache: torch.Tensor, indices: torch.Tensor,
                         sm_scale: float, out: torch.Tensor, lse: torch.Tensor) -> None:
    """The plain PyTorch path (gather + matmul + softmax in bf16/fp32), the baseline to beat;
    an fp8_656 cache is dequantized to bf16 after the gather (exact)."""
    valid = indices >= 0
    rows = _gather(kv_cache, indices.clamp(min=0).long()).to(torch.bfloat16)  # [B, k, 576] bf16
    s = _scores_fp32(q, rows.transpose(1, 2)) * sm_scale                    # [B, H, k]
    s = s.masked_fill(~valid[:, None, :], float("-inf"))
    l = torch.logsumexp(s, dim=-1)
    empty = ~valid.any(dim=-1)
    p = torch.exp(s - l.masked_fill(empty[:, None], 0.0)[..., None])
    out.copy_(torch.bmm(p.to(rows.dtype), rows[..., :D_V]))
    lse.copy_(l.masked_fill(empty[:, None], float("inf")))


def _scores_fp32(q: torch.Tensor, rows_t: torch.Tensor) -> torch.Tensor:
    # bf16 scores would round the logits (|q.k| ~ 30) by ~0.1: too coarse for the tolerance.
    # CUDA has a bf16 x bf16 -> fp32 batched matmul; elsewhere upcast.
    if q.is_cuda:
        return torch.bmm(q, rows_t, out_dtype=torch.float32)
    return torch.bmm(q.float(), rows_t.float())
