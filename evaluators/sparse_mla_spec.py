"""What the driver knows of the sparse MLA decode problem before a run, without PyTorch: its name,
the arguments its entry is called with, and the arguments it takes and refuses. The problem itself
(evaluators/sparse_mla.py, which imports torch) is made in the worker."""

from __future__ import annotations

NAME = "sparse_mla_decode"
ENTRY_ARGS = ("q", "kv_cache", "indices", "sm_scale", "out", "lse")  # what the problem's `call` passes, in order
D_QK = 576
KV_ROW_BYTES = {"bf16": D_QK * 2, "fp8_656": 656}


def check_args(kv_format: str = "bf16") -> None:
    """The problem's arguments (its constructor's), or a ValueError naming the one at fault."""
    if kv_format not in KV_ROW_BYTES:
        raise ValueError(f"{NAME}: kv_format {kv_format!r} is not one of {sorted(KV_ROW_BYTES)}")
