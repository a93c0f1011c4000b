"""Where a seesaw CTA spends its cycles: the rendered kernel is instrumented (clock() sums per
phase, written through the `arrivals` pointer, which a separate combine never reads), launched
directly after an L2 flush, and the per-CTA sums are summarized (median and max over CTAs, in us,
cycles converted by each CTA's own globaltimer span).

Usage: python3 scripts/device/trace_seesaw.py VARIANTS.json [--batches 1,8,128] [--context 32768]
VARIANTS.json maps a name to {"genes": {...}, "edits": [[old, new], ...], "template": PATH}, each
field optional, or to gene changes alone (scripts/device/variants.py says what each means): edits
to the rendered source before instrumenting, each old text present exactly once; "template" an
older text of the template, e.g. from `git show REV:templates/sparse_mla.cu.j2`, whose probes are
placed where their anchors are found. COMBINE is forced to separate.
Consumer phases: wait for Q, wait for a full pair, scores, softmax and exchange, values, epilogue
(the lockstep schedule's consumers: a pingpong or scorer variant is refused before any GPU work).
Producer phases: wait for a free pair buffer, issue of the copies, wait for own copies, dequantize.
Writes $OUT/trace.json.
"""
import argparse, json, os, statistics, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
import torch
from engine.template import load_template
from evaluators.cuda_compile import compile_cuda
from evaluators.sparse_mla import SparseMlaDecode
from evaluators.problem import Workload
from evaluators.sparse_mla_cuda import (LOG2E, parse_contract, partial_buffers, query_map_arguments, split_grid,
                                        split_plan)
from variants import load_variants

SLOTS = ["c_wait_q", "c_wait_full", "c_scores", "c_softmax", "c_values", "c_epilogue", "c_total",
         "p_wait_free", "p_gather", "p_wait_copies", "p_dequant", "p_total", "n_iter"]

PROBES = [  # (anchor, replacement): each anchor exactly once in a seesaw source
    ("  const int hb = blockIdx.x / VS, vh = blockIdx.x % VS, split = blockIdx.y, b = blockIdx.z;\n",
     "  const int hb = blockIdx.x / VS, vh = blockIdx.x % VS, split = blockIdx.y, b = blockIdx.z;\n"
     "  long long* kg_tr = reinterpret_cast<long long*>(arrivals) +\n"
     "      ((size_t)(blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) * 16;\n"
     "  const long long kg_start = clock64();\n"
     "  unsigned long long kg_g0; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(kg_g0));\n"),
    ("    const int p = tid - 256;\n",
     "    const int p = tid - 256;\n    unsigned kgp[4] = {0u, 0u, 0u, 0u}, kgp_t = 0u;\n"),
    ("      if (use > 0) mbar_wait(bar_free + 8 * ps, (use - 1) & 1);\n",
     "      kgp_t = clock(); if (use > 0) mbar_wait(bar_free + 8 * ps, (use - 1) & 1); kgp[0] += clock() - kgp_t;\n"
     "      kgp_t = clock();\n"),
    ("      if constexpr (!FP8) {\n        mbar_arrive(bar_full + 8 * (ps * AG + PAIR_AG - 1));",
     "      kgp[1] += clock() - kgp_t;\n      if constexpr (!FP8) {\n        mbar_arrive(bar_full + 8 * (ps * AG + PAIR_AG - 1));"),
    ("        asm volatile(\"cp.async.wait_all;\\n\" ::: \"memory\");\n        bar_sync<BAR_PRODUCER, 128>();\n",
     "        kgp_t = clock();\n        asm volatile(\"cp.async.wait_all;\\n\" ::: \"memory\");\n"
     "        bar_sync<BAR_PRODUCER, 128>();\n        kgp[2] += clock() - kgp_t; kgp_t = clock();\n"),
    ("        async_proxy_fence();  // ordinary stores that the tensor cores read next\n        mbar_arrive(bar_full + 8 * ps * AG);\n      }\n    }\n",
     "        async_proxy_fence();  // ordinary stores that the tensor cores read next\n        mbar_arrive(bar_full + 8 * ps * AG);\n"
     "        kgp[3] += clock() - kgp_t;\n      }\n    }\n"),
    ("    }\n    asm volatile(\"cp.async.wait_all;\\n\" ::: \"memory\");\n",
     "    }\n    asm volatile(\"cp.async.wait_all;\\n\" ::: \"memory\");\n"
     "    if (p == 0) { for (int i = 0; i < 4; ++i) kg_tr[7 + i] = kgp[i]; kg_tr[11] = clock64() - kg_start; kg_tr[12] = n_iter; }\n"),
    # consumers: the waits for queries and rows sit inside the scores' issue (arrival groups), so the
    # scores phase is the issue-to-finish time less those waits
    ("    float m_run[2] = {-INFINITY, -INFINITY}, l_run[2] = {0.f, 0.f};\n",
     "    float m_run[2] = {-INFINITY, -INFINITY}, l_run[2] = {0.f, 0.f};\n"
     "    unsigned kgc[6] = {0u, 0u, 0u, 0u, 0u, 0u}, kg_t, kg_w;\n"),
    ("          if (AG > 1 && first) mbar_wait(bar_q + 8 * grp, 0);",
     "          unsigned kg_q = clock(); if (AG > 1 && first) mbar_wait(bar_q + 8 * grp, 0); kgc[0] += clock() - kg_q;"),
    ("    if (AG == 1 && n_iter > 0) mbar_wait(bar_q, 0);\n",
     "    kg_t = clock(); if (AG == 1 && n_iter > 0) mbar_wait(bar_q, 0); kgc[0] += clock() - kg_t;\n"),
    ("          mbar_wait(full + 8 * (PAIR_AG > 1 ? grp : 0), parity);\n",
     "          unsigned kg_f = clock(); mbar_wait(full + 8 * (PAIR_AG > 1 ? grp : 0), parity); kgc[1] += clock() - kg_f;\n"),
    ("      const int ps = it % PAIRS;\n      issue_scores_at(",
     "      const int ps = it % PAIRS;\n      kg_t = clock(); kg_w = kgc[0] + kgc[1];\n      issue_scores_at("),
    ("(it / PAIRS) & 1, it == 0, s);\n      wg_wait0();\n",
     "(it / PAIRS) & 1, it == 0, s);\n      wg_wait0();\n"
     "      kgc[2] += clock() - kg_t - (kgc[0] + kgc[1] - kg_w); kg_t = clock();\n"),
    ("      pin_registers(o);\n      wg_fence();\n      issue_values(it);\n",
     "      pin_registers(o);\n      kgc[3] += clock() - kg_t; kg_t = clock();\n      wg_fence();\n      issue_values(it);\n"),
    ("      issue_values(it);\n      wg_wait0();\n      mbar_arrive(bar_free + 8 * (it % PAIRS));\n",
     "      issue_values(it);\n      wg_wait0();\n      kgc[4] += clock() - kg_t;\n      mbar_arrive(bar_free + 8 * (it % PAIRS));\n"),
    ("    write_rows",  # write_rows( or write_rows_bulk(
     "    kg_t = clock();\n    write_rows"),
    (";  // tid < 256 here\n",  # the end of the epilogue's call, whichever
     ";  // tid < 256 here\n"
     "    if (tid == 0) { kgc[5] = clock() - kg_t; for (int i = 0; i < 6; ++i) kg_tr[i] = kgc[i]; kg_tr[6] = clock64() - kg_start;\n"
     "      unsigned long long g1; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(g1)); kg_tr[13] = kg_g0; kg_tr[14] = g1; }\n"),
]


def instrument(source: str, strict: bool = True) -> str:
    """The source with every probe whose anchor it has; `strict` (the current template, either
    cache format: both producers' code is in the source) requires all of them."""
    for old, new in PROBES:
        n = source.count(old)
        if not strict and n != 1:
            continue
        assert n == 1, (n, old)
        source = source.replace(old, new)
    return source


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("variants")
    ap.add_argument("--batches", default="1,8,128")
    ap.add_argument("--context", type=int, default=32768)
    args = ap.parse_args()
    t = load_template(Path("templates/sparse_mla.cu.j2"))
    variants = load_variants(args.variants, t, language="cuda", force={"COMBINE": "separate"})
    for name, variant in variants.items():  # before any GPU work
        schedule = variant.params.get("SCHEDULE", "lockstep")
        if schedule != "lockstep":
            raise SystemExit(f"{args.variants}: variant {name!r}: SCHEDULE = {schedule} has none of the lockstep "
                             "consumers' code that the probes are placed in; trace lockstep genomes only "
                             "(scorer genomes: trace_timeline.py)")
    dev = torch.device("cuda", 0)
    sm_count = torch.cuda.get_device_properties(dev).multi_processor_count
    flush = torch.empty(torch.cuda.get_device_properties(dev).L2_cache_size // 2, dtype=torch.int32, device=dev)
    report = {}
    for name, variant in variants.items():
        p = variant.params
        src = instrument(variant.render(), strict=variant.template_file is None)
        build = compile_cuda(src, Path("results/trace/cubins"))
        if not build.ok:
            print(name, "compile failed", build.excerpt(), flush=True)
            continue
        contract = parse_contract(src)
        problem = SparseMlaDecode(p["KV_FORMAT"])
        from evaluators.cuda_launch import CubinModule  # needs cuda-python (the device)
        module = CubinModule(Path(build.cubin), dev)
        for b in map(int, args.batches.split(",")):
            w = Workload(f"b{b}", b, 128, 2048, args.context)
            inp = problem.make_inputs(w, torch.Generator(dev).manual_seed(1), problem.new_pool(dev, [w]))
            splits, per_split = split_plan(contract, b, 128, 2048, sm_count)
            grid = split_grid(contract, 128, splits, b)
            out = torch.empty(b, 128, 512, dtype=torch.bfloat16, device=dev)
            lse = torch.empty(b, 128, dtype=torch.float32, device=dev)
            part_out, part_lse = partial_buffers(contract, b, splits, 128, dev)
            trace = torch.zeros(grid[0] * grid[1] * grid[2], 16, dtype=torch.int64, device=dev)
            launch = lambda: module.launch(  # noqa: E731
                contract.split_kernel, grid, contract.threads, contract.smem_bytes,
                *(x.data_ptr() for x in (inp.q, inp.kv_cache, inp.indices, out, lse, part_out, part_lse, trace)),
                np.int32(128), np.int32(2048), np.int32(splits), np.int32(per_split),
                np.float32(inp.sm_scale * LOG2E), *query_map_arguments(contract, inp.q))
            runs = []
            for _ in range(5):
                flush.random_(0, 1 << 30)
                launch()
                torch.cuda.synchronize()
                runs.append(trace.cpu().numpy().copy())
            tr = np.concatenate(runs[1:])
            span_ns = (tr[:, 14] - tr[:, 13]).astype(np.float64)
            ghz = np.median(tr[:, 6] / np.maximum(span_ns, 1))
            kernel_us = [(r[:, 14].max() - r[:, 13].min()) / 1e3 for r in runs[1:]]
            row = {"splits": splits, "ctas": int(tr.shape[0] // 4), "ghz": float(ghz),
                   "kernel_span_us": statistics.median(kernel_us)}
            for i, slot in enumerate(SLOTS):
                col = tr[:, i if i < 12 else 12].astype(np.float64)
                if slot == "n_iter":
                    row[slot] = float(np.median(col))
                else:
                    row[slot] = {"median_us": float(np.median(col) / ghz / 1e3), "max_us": float(col.max() / ghz / 1e3)}
            report.setdefault(name, {})[w.name] = row
            cells = " ".join(f"{s}={row[s]['median_us']:.2f}" for s in SLOTS[:-1])
            print(f"{name} {w.name} splits={splits} iters={row['n_iter']:.0f} span={row['kernel_span_us']:.1f}us "
                  f"{ghz:.2f}GHz {cells}", flush=True)
            del inp
            torch.cuda.empty_cache()
    Path(os.environ.get("OUT", "/tmp"), "trace.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
