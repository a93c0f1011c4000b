"""Sixteen calls in a graph: what half the partials would save (upper bound of a pair merge in
distributed shared memory): half the threads store their partial rows, the combine reads half
the splits. Outputs wrong by design except as_is."""
import json, os, sys
from pathlib import Path
sys.path.insert(0, os.getcwd()); sys.path.insert(0, "scripts/device")
import numpy as np
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

STORE = "        store_partial_tiles(dst + j * 8, o[j * 4 + half * 2] * inv, o[j * 4 + half * 2 + 1] * inv,\n"
HALF = (STORE, "        if (row0 < 32) store_partial_tiles(dst + j * 8, o[j * 4 + half * 2] * inv, o[j * 4 + half * 2 + 1] * inv,\n")
# mode: (edits, the combine kernel merges splits / this many)
MODES = {"as_is": ([], 1), "half_stores": ([HALF], 1), "merge_half": ([], 2), "half_stores+merge_half": ([HALF], 2),
         "as_is_again": ([], 1)}
dev = torch.device("cuda", 0)
timer = GraphTimer(dev, torch.cuda.get_device_properties(dev).L2_cache_size, reps=30)
cache = Path("results/exp3/cubins")
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
    if hpc > 1:  # the combine kernel reads only the first splits / hpc partials of each token
        launch = module.launch
        def patched(name, grid, block, smem, *a, _l=launch, _h=hpc, **k):
            if name == contract.combine_kernel:
                a = a[:-1] + (np.int32(int(a[-1]) // _h),)
            return _l(name, grid, block, smem, *a, **k)
        module.launch = patched
    fn = make_entry(contract, module)
    problem = SparseMlaDecode(variant.params["KV_FORMAT"])
    for b in batches:
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
Path(os.environ.get("OUT", "/tmp"), "exp3.json").write_text(json.dumps(report, indent=1))
