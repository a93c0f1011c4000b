"""Each kernel's own time inside the decode layer's graph, from the CUDA profiler (torch.profiler,
CUPTI): for each variant and batch, the layer step with the variant's attention, the attention's
graph alone (one call a graph), and the attention after and before the layer's first projection
(a GEMM), each graph replayed 20 times, each kernel's mean duration and the mean idle time before
it (since the kernel before it ended). It says
whether a genome that costs more inside the layer than alone runs longer itself there, or makes a
neighbour run longer. A diagnostic, never a figure of the method (no L2 rewrite between replays,
the profiler's own overhead between kernels).

Usage: python3 scripts/device/layer_trace.py VARIANTS.json [--batches 1] [--context 32768]
Writes $OUT/layer_trace.json.
"""
import dataclasses, json, os, sys
from collections import defaultdict
from pathlib import Path
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
from evaluators.bench import GraphTimer
from evaluators.sparse_mla import SparseMlaDecode
from cuda_entry import build_entry, compiling_variants, each_layer_batch, layer_script_args


def kernel_times(graph, replays: int = 20) -> list[dict]:
    """Each kernel the replays ran: name, launches a replay, mean us, in the order first seen."""
    graph.replay()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(replays):
            graph.replay()
        torch.cuda.synchronize()
    kernels = sorted((e for e in prof.events()
                      if e.device_type == torch.autograd.DeviceType.CUDA and "memcpy" not in e.name.lower()),
                     key=lambda e: e.time_range.start)
    total, count, gap, order = defaultdict(float), defaultdict(int), defaultdict(float), []
    for i, e in enumerate(kernels):
        if e.name not in total:
            order.append(e.name)
        total[e.name] += e.device_time
        count[e.name] += 1
        # idle device time before it, since the kernel before it ended (a graph's first kernel: since
        # the previous replay's last; replays are queued back to back)
        gap[e.name] += max(0.0, e.time_range.start - kernels[i - 1].time_range.end) if i else 0.0
    return [{"kernel": n[:90], "per_replay": count[n] / replays, "mean_us": total[n] / count[n],
             "gap_before_us": gap[n] / count[n]} for n in order]


def main():
    args = layer_script_args(batches="1", repeats=None)
    dev = torch.device("cuda", 0)
    timer = GraphTimer(dev, torch.cuda.get_device_properties(dev).L2_cache_size)
    cache = Path("results/layer_trace/cubins")
    variants, sources, ahead = compiling_variants(args.variants, cache)
    report = []
    for layer, x, w in each_layer_batch(args, dev):
        for name, variant in variants.items():
            ahead.result(sources[name])
            fn = build_entry(sources[name], cache, dev)
            problem = SparseMlaDecode(variant.params["KV_FORMAT"])
            inp = problem.make_inputs(w, torch.Generator(dev).manual_seed(5), problem.new_pool(dev, [w]))
            outputs = (layer.out, layer.lse)
            attend = lambda q: problem.call(fn, dataclasses.replace(inp, q=q), outputs)  # noqa: E731
            own = problem.poisoned_outputs(w, dev)
            call = lambda: problem.call(fn, inp, own)  # noqa: E731
            gemm = lambda: x @ layer.w_qa  # noqa: E731  (the layer's first projection, 22 MB of weights)
            for where, graph in (("layer", timer.capture(lambda: layer.step(x, attend))),
                                 ("alone", timer.capture(call)),
                                 ("after a gemm", timer.capture(lambda: (gemm(), call()))),
                                 ("before a gemm", timer.capture(lambda: (call(), gemm())))):
                kernels = kernel_times(graph)
                report.append({"variant": name, "workload": w.name, "where": where, "kernels": kernels})
                print(f"{name} {w.name} {where}: " + "; ".join(f"{k['kernel'][:40]} x{k['per_replay']:.0f} "
                                                               f"{k['mean_us']:.1f} (gap {k['gap_before_us']:.1f})"
                                                               for k in kernels), flush=True)
    ahead.close()
    Path(os.environ.get("OUT", "/tmp"), "layer_trace.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
