"""Three launches of a CUDA genome on the b128_ctx32k workload, for ncu to profile the third:
    ncu --clock-control none --kernel-name sparse_mla_decode_split --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight ... python3 scripts/device/ncu_one_launch.py '{"MMA":"wgmma"}'"""
import json, os, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
import torch
from engine.template import load_template
from evaluators.cuda_compile import compile_cuda
from evaluators.cuda_launch import CubinModule
from evaluators.sparse_mla import SparseMlaDecode
from evaluators.sparse_mla_cuda import make_entry, parse_contract
from evaluators.problem import Workload

genes = json.loads(sys.argv[1])
t = load_template(Path("templates/sparse_mla.cu.j2")); space = t.load_space()
p = {**space.default_params(), **genes}
src = t.render(p)
build = compile_cuda(src, Path("results/ncu/cubins"))
assert build.ok, build.log
dev = torch.device("cuda", 0)
fn = make_entry(parse_contract(src), CubinModule(Path(build.cubin), dev))
problem = SparseMlaDecode(p["KV_FORMAT"])
w = Workload("b128_ctx32k", 128, 128, 2048, 32768)
inp = problem.make_inputs(w, torch.Generator(dev).manual_seed(1), problem.new_pool(dev))
out, lse = problem.poisoned_outputs(w, dev)
for _ in range(3):
    problem.call(fn, inp, (out, lse))
torch.cuda.synchronize()
print("ok", problem.check(inp, (out, lse))[0])
