"""Sixteen calls in a graph (time_in_graph.py's per_call), for knockouts of the combine kernel:
as is; the combine kernel preferring the largest shared-memory carveout (that of the split
kernel); the combine's body empty; no combine launch. Outputs checked only for the first two."""
import json, os, sys
from pathlib import Path
sys.path.insert(0, os.getcwd()); sys.path.insert(0, "scripts/device")
import torch
from engine.template import load_template
from evaluators.bench import GraphTimer
from evaluators.cuda_compile import compile_cuda
from evaluators.cuda_launch import CubinModule, _set_attribute
from evaluators.problem import Workload
from evaluators.sparse_mla import SparseMlaDecode
from evaluators.sparse_mla_cuda import make_entry, parse_contract
from time_in_graph import per_call
from variants import load_variants

dev = torch.device("cuda", 0)
timer = GraphTimer(dev, torch.cuda.get_device_properties(dev).L2_cache_size, reps=30)
cache = Path("results/graph_knock/cubins")
report = {}
EMPTY = ("  kg::merge_head(part_out, part_lse, out, lse, blockIdx.y, blockIdx.x, heads, num_splits);\n", "")
for name, variant in load_variants(sys.argv[1], load_template(Path("templates/sparse_mla.cu.j2")), language="cuda").items():
    for mode in ("as_is", "carveout", "empty_combine", "no_combine", "as_is_again"):
        src = variant.render()
        if mode == "empty_combine":
            assert src.count(EMPTY[0]) == 1
            src = src.replace(*EMPTY)
        build = compile_cuda(src, cache)
        assert build.ok, build.log[-2000:]
        contract = parse_contract(src)
        module = CubinModule(Path(build.cubin), dev)
        if mode == "carveout":
            _set_attribute(module.kernel(contract.combine_kernel), "CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT",
                           100, module.device_index, "carveout")
        if mode == "no_combine":
            launch = module.launch
            module.launch = lambda kname, *a, **k: None if kname == contract.combine_kernel else launch(kname, *a, **k)
        fn = make_entry(contract, module)
        problem = SparseMlaDecode(variant.params["KV_FORMAT"])
        for b in (1, 8):
            w = Workload(f"b{b}_ctx128k", b, 128, 2048, 131072)
            pool = problem.new_pool(dev, [w])
            sets = [(problem.make_inputs(w, torch.Generator(dev).manual_seed(100 + i), pool),
                     problem.poisoned_outputs(w, dev)) for i in range(16)]
            calls = [lambda inp=inp, out=out: problem.call(fn, inp, out) for inp, out in sets]
            many = per_call(timer, calls, lambda: [problem.poison(out) for _, out in sets])
            checks = sorted({problem.check(inp, out)[0] or "ok" for inp, out in sets})
            report[f"{name} {mode} {w.name}"] = {**many, "checks": checks}
            print(f"{name} {mode:14s} {w.name}: {many['median_us']:.2f} us a call (iqr {many['iqr_us']:.2f}); "
                  f"checks {checks[0][:60] if mode in ('as_is', 'carveout', 'as_is_again') else '(not expected)'}", flush=True)
            sets = calls = pool = None
            torch.cuda.empty_cache()
Path(os.environ.get("OUT", "/tmp"), "graph_knock.json").write_text(json.dumps(report, indent=1))
