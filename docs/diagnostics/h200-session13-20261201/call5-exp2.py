"""Sixteen calls in a graph: the scorer genome with the first pair's rows gathered before the
next pair's, and the combine kernel with several heads a CTA (B=8: one group of splits)."""
import json, os, sys
from pathlib import Path
sys.path.insert(0, os.getcwd()); sys.path.insert(0, "scripts/device")
import torch
from engine.template import load_template
from evaluators.bench import GraphTimer
from evaluators.cuda_compile import compile_cuda
from evaluators.cuda_launch import CubinModule
from evaluators.problem import Workload
from evaluators.sparse_mla import SparseMlaDecode
from evaluators.sparse_mla_cuda import make_entry, parse_contract
from time_in_graph import per_call
from variants import load_variants

GATHER = ("      for (int u = 0; u < PAIR_SPACE_BUFS; ++u)\n        if (u < 2 * n_iter) gather(u, ids[u]);\n")
def prio(wait_tile):
    return ("      for (int u = 0; u < 2; ++u)\n        if (u < 2 * n_iter) gather(u, ids[u]);\n"
            f"      if (2 * n_iter > 2) mbar_wait(bar_full + 8 * {wait_tile}, 0);\n"
            "#pragma unroll\n      for (int u = 2; u < PAIR_SPACE_BUFS; ++u)\n        if (u < 2 * n_iter) gather(u, ids[u]);\n")
GROUPS = ("const int tid = threadIdx.x, c4 = tid & 127, g = tid >> 7, groups = blockDim.x >> 7;",
          "const int tid = threadIdx.x, c4 = tid & 127, g = 0, groups = 1;")
def heads_per_cta(n):
    return ("  kg::merge_head(part_out, part_lse, out, lse, blockIdx.y, blockIdx.x, heads, num_splits);\n",
            f"  kg::merge_head(part_out, part_lse, out, lse, blockIdx.y, blockIdx.x * {n} + (threadIdx.x >> 7), heads, num_splits);\n")
MODES = {"as_is": ([], 1), "prio_wait0": ([(GATHER, prio(0))], 1), "prio_wait1": ([(GATHER, prio(1))], 1),
         "merge_2heads": ([GROUPS, heads_per_cta(2)], 2), "merge_4heads": ([GROUPS, heads_per_cta(4)], 4),
         "as_is_again": ([], 1)}
dev = torch.device("cuda", 0)
timer = GraphTimer(dev, torch.cuda.get_device_properties(dev).L2_cache_size, reps=30)
cache = Path("results/exp2/cubins")
report = {}
variant = load_variants(sys.argv[1], load_template(Path("templates/sparse_mla.cu.j2")), language="cuda")["s"]
batches = [int(x) for x in sys.argv[2].split(",")]
for mode, (edits, hpc) in MODES.items():
    src = variant.render()
    for old, new in edits:
        assert src.count(old) == 1, (mode, old)
        src = src.replace(old, new)
    build = compile_cuda(src, cache)
    assert build.ok, build.log[-2000:]
    contract = parse_contract(src)
    module = CubinModule(Path(build.cubin), dev)
    if hpc > 1:
        launch = module.launch
        def patched(name, grid, block, smem, *a, _l=launch, _h=hpc, **k):
            if name == contract.combine_kernel:
                assert block == 128, block
                grid, block = (grid[0] // _h, grid[1], grid[2]), 128 * _h
            return _l(name, grid, block, smem, *a, **k)
        module.launch = patched
    fn = make_entry(contract, module)
    problem = SparseMlaDecode(variant.params["KV_FORMAT"])
    for b in batches:
        if hpc > 1 and b == 1:
            continue  # B=1 has 64 splits: the combine's groups of splits are its threads
        w = Workload(f"b{b}_ctx128k", b, 128, 2048, 131072)
        pool = problem.new_pool(dev, [w])
        sets = [(problem.make_inputs(w, torch.Generator(dev).manual_seed(100 + i), pool),
                 problem.poisoned_outputs(w, dev)) for i in range(16)]
        calls = [lambda inp=inp, out=out: problem.call(fn, inp, out) for inp, out in sets]
        many = per_call(timer, calls, lambda: [problem.poison(out) for _, out in sets])
        checks = sorted({problem.check(inp, out)[0] or "ok" for inp, out in sets})
        report[f"{mode} {w.name}"] = {**many, "checks": checks}
        print(f"{mode:14s} {w.name}: {many['median_us']:.2f} us a call (iqr {many['iqr_us']:.2f}); checks {checks[0][:70]}", flush=True)
        sets = calls = pool = None
        torch.cuda.empty_cache()
Path(os.environ.get("OUT", "/tmp"), "exp2.json").write_text(json.dumps(report, indent=1))
