import os, sys, torch
sys.path.insert(0, os.getcwd())
from pathlib import Path
from engine.template import load_template
from evaluators.triton_backend import load_entry
from evaluators.sparse_mla import SparseMlaDecode, make_inputs
from evaluators.problem import Workload
t = load_template(Path("templates/sparse_mla.triton.j2"))
best = {"COMBINE":"separate","HEADS_PER_PROGRAM":64,"NUM_SPLITS":1,"NUM_STAGES":2,"NUM_WARPS":8,"PREFETCH_INDICES":True,"TOPK_TILE":64,"MASK_INVALID_ROWS":False,"SCORE_LAYOUT":"heads_by_rows","PROGRAM_SPLIT":"heads"}
fn = load_entry(t.render(best), t.entry, Path("/tmp/kprof"))
w = Workload("b64", 64, 128, 2048, 32768)
dev = torch.device("cuda")
pool = torch.empty(64 * 32768, 576, dtype=torch.bfloat16, device=dev)
inp = make_inputs(w, torch.Generator(dev).manual_seed(0), dev, pool)
out = torch.empty(64, 128, 512, dtype=torch.bfloat16, device=dev); lse = torch.empty(64, 128, device=dev)
for _ in range(3):
    fn(inp.q, inp.kv_cache, inp.indices, inp.sm_scale, out, lse)
torch.cuda.synchronize()
