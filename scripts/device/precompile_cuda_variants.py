"""Compile the CUDA variants of a time_cuda_genomes.py variants file in parallel, one process each,
into that script's worker cache (results/compare/cubins), so that its serial worker finds them
built instead of spending 10-30 s of device time on nvcc per variant.
Usage: python3 scripts/device/precompile_cuda_variants.py VARIANTS.json"""
import json, sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
sys.path.insert(0, ".")
from engine.template import load_template
from evaluators.cuda_compile import compile_cuda

def build(p):
    t = load_template(Path("templates/sparse_mla.cu.j2"))
    b = compile_cuda(t.render(p), Path("results/compare/cubins"))
    return b.ok, b.totals()

t = load_template(Path("templates/sparse_mla.cu.j2")); space = t.load_space()
ps = [dict(space.default_params(), **d) for d in json.loads(Path(sys.argv[1]).read_text()).values() if "template" not in d]
for p in ps:
    assert space.is_valid(p), space.violations(p)
with ProcessPoolExecutor(len(ps)) as ex:
    for p, r in zip(ps, ex.map(build, ps)):
        print(r, flush=True)
