"""The attention layer of a DeepSeek-V3.2 decode step, around the sparse MLA kernel: the e2e stage.

A kernel is timed alone on its own inputs; a model runs it between other kernels, on a query that
those kernels made a moment before on the same stream, with the layer's weights streaming through
the L2. This layer is MLA in its absorbed (MQA) form, as DeepSeek serves decode:

    x [B, hidden] -> q_a = rmsnorm(x W_qa) -> q = q_a W_qb, per head 128 NoPE + 64 RoPE
    -> q_nope absorbed through W_UK (128 -> 512 per head), RoPE part kept: q [B, H, 576]
    -> sparse MLA attention over the top-k cache rows: o [B, H, 512]
    -> o through W_UV (512 -> 128 per head) -> W_o -> + x

The weights are random (scaled by fan-in) and bf16, of the model's sizes on a GPU (hidden 7168,
q LoRA rank 1536, 366 MB of weights) and small ones under the interpreter. The indexer and the
cache write are left out: they do not touch the attention kernel's inputs or outputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

from evaluators.sparse_mla import D_QK, D_V


@dataclass(frozen=True)
class LayerDims:
    hidden: int
    q_lora: int
    nope: int     # per head, before absorption
    rope: int
    v_head: int


MODEL = LayerDims(hidden=7168, q_lora=1536, nope=128, rope=D_QK - D_V, v_head=128)  # DeepSeek-V3.2
INTERPRETER = LayerDims(hidden=256, q_lora=64, nope=32, rope=D_QK - D_V, v_head=32)


def weight_bytes(dims: LayerDims, heads: int) -> int:
    """The layer's bf16 projection weights, as DecodeLayer allocates them (366 MB at the model's sizes)."""
    d = dims
    return 2 * (d.hidden * d.q_lora + d.q_lora * heads * (d.nope + d.rope) + heads * d.nope * D_V
                + heads * D_V * d.v_head + heads * d.v_head * d.hidden)


Attend = Callable[[torch.Tensor], None]  # given the layer's query, fills the layer's out and lse


class DecodeLayer:
    def __init__(self, dims: LayerDims, heads: int, batch: int, device: torch.device, gen: torch.Generator):
        self.dims, self.heads = dims, heads

        def weight(*shape: int, fan_in: int) -> torch.Tensor:
            return (torch.randn(*shape, generator=gen, device=device) * fan_in ** -0.5).to(torch.bfloat16)

        d = dims
        self.w_qa = weight(d.hidden, d.q_lora, fan_in=d.hidden)
        self.norm = torch.ones(d.q_lora, dtype=torch.bfloat16, device=device)
        self.w_qb = weight(d.q_lora, heads * (d.nope + d.rope), fan_in=d.q_lora)
        self.w_uk = weight(heads, d.nope, D_V, fan_in=d.nope)
        self.w_uv = weight(heads, D_V, d.v_head, fan_in=D_V)
        self.w_o = weight(heads * d.v_head, d.hidden, fan_in=heads * d.v_head)
        # the attention's outputs live with the layer, as a model's preallocated buffers do
        self.out = torch.empty(batch, heads, D_V, dtype=torch.bfloat16, device=device)
        self.lse = torch.empty(batch, heads, dtype=torch.float32, device=device)
        self.q: torch.Tensor | None = None  # the query of the latest step (in a graph: its buffer)

    def query(self, x: torch.Tensor) -> torch.Tensor:
        d, batch = self.dims, x.shape[0]
        q_a = torch.nn.functional.rms_norm(x @ self.w_qa, (d.q_lora,), self.norm)
        q = (q_a @ self.w_qb).view(batch, self.heads, d.nope + d.rope)
        q_nope = torch.einsum("bhn,hnc->bhc", q[..., : d.nope], self.w_uk)
        return torch.cat([q_nope, q[..., d.nope:]], dim=-1)

    def step(self, x: torch.Tensor, attend: Attend | None) -> torch.Tensor:
        """One decode step of the layer; ``attend`` None leaves the attention out (what the rest
        of the layer costs)."""
        self.q = self.query(x)
        if attend is not None:
            attend(self.q)
        return self.project_out(x, self.out)

    def project_out(self, x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
        """The step after the attention: ``out`` [B, H, 512] through the value and output
        projections, added to the step's input ``x``."""
        o = torch.einsum("bhc,hcv->bhv", out, self.w_uv)
        return x + o.reshape(x.shape[0], -1) @ self.w_o
