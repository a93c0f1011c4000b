"""Prototype (edits + own launcher): the combine kernel merges a head as soon as its head block's
splits have stored their partials (a counter per head block, release/acquire), instead of after
griddepcontrol.wait (the whole split grid). Sixteen calls in a graph, outputs checked."""
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

END = "  // tid < 256 here\n  }\n}\n"
SIGNAL = ("  // tid < 256 here\n    if (num_splits > 1) {\n      __threadfence();\n      bar_sync<BAR_EPILOGUE, 256>();\n"
          "      if (tid == 0) atomicAdd(arrivals + (size_t)b * gridDim.x + hb, 1);\n    }\n  }\n}\n")
SIG = "__nv_bfloat16* __restrict__ out, float* __restrict__ lse, int heads, int num_splits) {\n"
WAIT = '  asm volatile("griddepcontrol.wait;\\n" ::: "memory");\n  kg::merge_head('
SPIN = ('  if (threadIdx.x == 0) {\n'
        '    const int groups = gridDim.y * (heads / 64), g = blockIdx.y * (heads / 64) + blockIdx.x / 64;\n'
        '    int v;\n    for (;;) {\n'
        '      asm volatile("ld.acquire.gpu.global.s32 %0, [%1];\\n" : "=r"(v) : "l"(ctr + g) : "memory");\n'
        '      if (v >= num_splits) break;\n      __nanosleep(64);\n    }\n'
        '    if (atomicAdd(ctr + groups + g, 1) == 63) { ctr[g] = 0; ctr[groups + g] = 0; }\n  }\n'
        '  __syncthreads();\n  kg::merge_head(')
EDITS = [(END, SIGNAL), (SIG, SIG.replace("int num_splits) {", "int num_splits, int* ctr) {")), (WAIT, SPIN),
         ("      l[k] = in ? lse_of[row] : -INFINITY;\n", "      l[k] = in ? __ldcg(lse_of + row) : -INFINITY;\n"),
         ("      o[k] = load_partial_quad<false>(part_of + row * D_V);\n", "      o[k] = load_partial_quad<true>(part_of + row * D_V);\n")]


def eager_entry(contract, module, counters):
    sm_count = torch.cuda.get_device_properties(module.device_index).multi_processor_count

    def entry(q, kv_cache, indices, sm_scale, out, lse):
        batch, heads, _ = q.shape
        splits, rows = split_plan(contract, batch, heads, indices.shape[1], sm_count)
        part_out, part_lse = partial_buffers(contract, batch, splits, heads, q.device)
        module.launch(contract.split_kernel, split_grid(contract, heads, splits, batch), contract.threads,
                      contract.smem_bytes, *(t.data_ptr() for t in (q, kv_cache, indices, out, lse, part_out, part_lse, counters)),
                      np.int32(heads), np.int32(indices.shape[1]), np.int32(splits), np.int32(rows),
                      np.float32(sm_scale * LOG2E), *query_map_arguments(contract, q))
        assert splits > 1
        module.launch(contract.combine_kernel, (heads, batch, 1), combine_threads(contract, splits), 0,
                      *(t.data_ptr() for t in (part_out, part_lse, out, lse)), np.int32(heads), np.int32(splits),
                      counters.data_ptr(), pdl=True)
    return entry


dev = torch.device("cuda", 0)
timer = GraphTimer(dev, torch.cuda.get_device_properties(dev).L2_cache_size, reps=30)
cache = Path("results/eager/cubins")
counters = torch.zeros(4096, dtype=torch.int32, device=dev)
for name, variant in load_variants(sys.argv[1], load_template(Path("templates/sparse_mla.cu.j2")), language="cuda").items():
    for mode in ("as_is", "eager", "as_is_again", "eager_again"):
        src = variant.render()
        if mode.startswith("eager"):
            for old, new in EDITS:
                assert src.count(old) == 1, (mode, old[:60])
                src = src.replace(old, new)
        build = compile_cuda(src, cache)
        assert build.ok, build.log[-2000:]
        contract = parse_contract(src)
        module = CubinModule(Path(build.cubin), dev)
        fn = eager_entry(contract, module, counters) if mode.startswith("eager") else make_entry(contract, module)
        problem = SparseMlaDecode(variant.params["KV_FORMAT"])
        for b in (8, 1):
            w = Workload(f"b{b}_ctx128k", b, 128, 2048, 131072)
            sets, calls = calls_on_own_inputs(problem, w, dev, fn, 16)
            many = per_call(timer, calls, lambda: [problem.poison(out) for _, out in sets])
            checks = sorted({problem.check(inp, out)[0] or "ok" for inp, out in sets})
            print(f"{name} {mode:12s} {w.name}: {many['median_us']:.2f} us a call (iqr {many['iqr_us']:.2f}); "
                  f"checks {checks[0][:70]}; counters left {int(counters.count_nonzero())}", flush=True)
            sets = calls = None
            torch.cuda.empty_cache()
