import os, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
import torch
from engine.template import load_template
from evaluators.cuda_compile import compile_cuda
from evaluators.cuda_launch import CubinModule
from evaluators.sparse_mla_cuda import parse_contract
sys.path.insert(0, "scripts/device")
from variants import load_variants
dev = torch.device("cuda", 0)
v = load_variants(".scratch/s13/v_cluster.json", load_template(Path("templates/sparse_mla.cu.j2")), language="cuda")["lock cluster8"]
src = v.render(); b = compile_cuda(src, Path("results/cap")); c = parse_contract(src)
m = CubinModule(Path(b.cubin), dev)
for s in (1, 2, 4, 8, 16):
    print("cluster", s, "max active clusters", m.max_active_clusters(c.split_kernel, (1, s, 1), c.threads, c.smem_bytes), flush=True)
