"""How many CTAs of a genome the H200 holds at once, alone and in clusters of two along x (the
head blocks' clusters of ROW_SHARE = cluster), and the split counts the launcher then makes.
Usage, from the repository root on the device: python3 THIS.py"""
import sys, os, tempfile
from pathlib import Path
sys.path.insert(0, os.getcwd())
import torch
from tests.gpu._cuda_setup import load_entry, seesaw_params
from evaluators.sparse_mla_cuda import split_plan

genes = {"SCHEDULE": "scorer", "TOPK_TILE": 32, "Q_LOAD": "tma", "PARTIALS": "i8", "COMBINE": "siblings",
         "KV_FORMAT": "fp8_656", "PDL": True, "FIRST_GATHER": "pair_first", "SPLIT_STEP": "tile"}
sm = torch.cuda.get_device_properties(0).multi_processor_count
for share in ("none", "cluster"):
    contract, module, entry, problem, dev = load_entry(seesaw_params(**genes, ROW_SHARE=share), Path(tempfile.mkdtemp()))
    blocks = sm * module.max_active_blocks(contract.split_kernel, contract.threads, contract.smem_bytes)
    pairs = module.max_active_clusters(contract.split_kernel, (2, 1, 1), contract.threads, contract.smem_bytes)
    resident = 2 * pairs if contract.row_share > 1 else blocks
    plans = {b: split_plan(contract, b, 128, 2048, sm, resident_ctas=resident)[0] for b in (1, 2, 4, 5, 6, 7, 8, 16, 64)}
    print(f"ROW_SHARE={share}: {blocks} CTAs alone, {pairs} clusters of 2; splits by batch {plans}")
