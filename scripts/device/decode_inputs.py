"""Fresh inputs of one sparse MLA decode call (H=128, top-k 2048) for the device scripts that
launch genomes outside the harness: a pool of cache rows in the genome's format, and the query,
block table and indices drawn by the problem's own generator."""
import torch

from evaluators.problem import Workload
from evaluators.sparse_mla import SparseMlaDecode, make_inputs, quantize_fp8_656


def decode_inputs(kv_format: str, batch: int, context: int, device: torch.device, seed: int = 1):
    w = Workload(f"b{batch}", batch, 128, 2048, context)
    rows = SparseMlaDecode.pool_rows([w])
    pool = (torch.empty(rows, 576, dtype=torch.bfloat16, device=device).normal_() if kv_format == "bf16"
            else quantize_fp8_656(torch.randn(rows, 576, device=device)))
    return w, make_inputs(w, torch.Generator(device).manual_seed(seed), device, pool)
