"""Prototype (edits + own launcher): the split kernel launched as a programmatic dependent of the
previous kernel (griddepcontrol.wait before anything global), the combine kernel triggering its
dependents at its start, so that in a graph of sixteen calls each split kernel's launch and
prologue overlap the previous call's combine. Outputs checked."""
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
from evaluators.sparse_mla_cuda import (LOG2E, combine_threads, parse_contract, partial_buffers, query_map_arguments,
                                        split_grid, split_plan, make_entry)
from time_in_graph import per_call, calls_on_own_inputs
from variants import load_variants

SPLIT_WAIT = ("  __syncthreads();\n\n  if (wg == 2) {",
              "  __syncthreads();\n  // a programmatic dependent of the previous kernel: nothing global is read or written before it ends\n"
              "  asm volatile(\"griddepcontrol.wait;\\n\" ::: \"memory\");\n\n  if (wg == 2) {")
TRIGGER = ('  asm volatile("griddepcontrol.wait;\\n" ::: "memory");\n  kg::merge_head(',
           '  asm volatile("griddepcontrol.launch_dependents;\\n" ::: "memory");\n'
           '  asm volatile("griddepcontrol.wait;\\n" ::: "memory");\n  kg::merge_head(')
EDITS = [SPLIT_WAIT, TRIGGER]


def pdl_entry(contract, module):
    sm_count = torch.cuda.get_device_properties(module.device_index).multi_processor_count

    def entry(q, kv_cache, indices, sm_scale, out, lse):
        batch, heads, _ = q.shape
        splits, rows = split_plan(contract, batch, heads, indices.shape[1], sm_count)
        part_out, part_lse = partial_buffers(contract, batch, splits, heads, q.device)
        module.launch(contract.split_kernel, split_grid(contract, heads, splits, batch), contract.threads,
                      contract.smem_bytes, *(t.data_ptr() for t in (q, kv_cache, indices, out, lse, part_out, part_lse, part_lse)),
                      np.int32(heads), np.int32(indices.shape[1]), np.int32(splits), np.int32(rows),
                      np.float32(sm_scale * LOG2E), *query_map_arguments(contract, q), pdl=True)
        assert splits > 1
        module.launch(contract.combine_kernel, (heads, batch, 1), combine_threads(contract, splits), 0,
                      *(t.data_ptr() for t in (part_out, part_lse, out, lse)), np.int32(heads), np.int32(splits), pdl=True)
    return entry


dev = torch.device("cuda", 0)
timer = GraphTimer(dev, torch.cuda.get_device_properties(dev).L2_cache_size, reps=30)
cache = Path("results/pdl_split/cubins")
for name, variant in load_variants(sys.argv[1], load_template(Path("templates/sparse_mla.cu.j2")), language="cuda").items():
    for mode in ("as_is", "pdl_split", "as_is_again", "pdl_split_again"):
        src = variant.render()
        if mode.startswith("pdl"):
            for old, new in EDITS:
                assert src.count(old) == 1, (mode, old[:60])
                src = src.replace(old, new)
        build = compile_cuda(src, cache)
        assert build.ok, build.log[-2000:]
        contract = parse_contract(src)
        module = CubinModule(Path(build.cubin), dev)
        fn = pdl_entry(contract, module) if mode.startswith("pdl") else make_entry(contract, module)
        problem = SparseMlaDecode(variant.params["KV_FORMAT"])
        for b in (8, 1):
            w = Workload(f"b{b}_ctx128k", b, 128, 2048, 131072)
            sets, calls = calls_on_own_inputs(problem, w, dev, fn, 16)
            many = per_call(timer, calls, lambda: [problem.poison(out) for _, out in sets])
            one = per_call(timer, calls[:1], lambda: [problem.poison(out) for _, out in sets])
            checks = sorted({problem.check(inp, out)[0] or "ok" for inp, out in sets})
            print(f"{name} {mode:16s} {w.name}: one call a graph {one['median_us']:.1f} (iqr {one['iqr_us']:.1f}); "
                  f"16 in a graph {many['median_us']:.2f} us a call (iqr {many['iqr_us']:.2f}); checks {checks[0][:70]}", flush=True)
            sets = calls = None
            torch.cuda.empty_cache()
