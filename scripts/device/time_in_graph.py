"""Per-call time of chosen CUDA genomes as a model's decode step sees it: N calls captured back to
back in one graph, each on its own inputs (its own queries, top-k lists and cache blocks, drawn
from a cache pool far larger than the L2), the graph timed as the harness times one call (a
2x-L2 rewrite before each replay, events around the replay), divided by N. Beside it, in the same
process: the harness's own figure (one call a graph) and the same two figures for empty kernels
(the methods' floors). A diagnostic of what the one-call method's launch floor hides, never a
figure of the method: the harness's figures stay the ones the search and the bars use.

Every call's outputs are poisoned before the timed replays and checked against the float64
reference after them.

Usage: python3 scripts/device/time_in_graph.py VARIANTS.json [--batches 1,8] [--context 131072] [--calls 16]
VARIANTS.json as for time_cuda_genomes.py (scripts/device/variants.py). Every variant is compiled
first, in parallel (an nvcc process a distinct source, as many at once as the machine has cores),
so that no variant waits for the one before it to build. Writes $OUT/in_graph.json.
"""
import argparse, json, os, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
from evaluators.bench import GraphTimer
from evaluators.problem import Workload
from evaluators.sparse_mla import SparseMlaDecode
from cuda_entry import build_entry, compiling_variants, empty_launch


def calls_on_own_inputs(problem, w: Workload, dev, fn, n: int) -> tuple[list, list]:
    """n calls of `fn` on workload w, each on its own queries, top-k lists and cache blocks (drawn
    from one pool of B x context rows, far larger than the L2) and its own poisoned outputs:
    (the (inputs, outputs) pairs, the calls)."""
    pool = problem.new_pool(dev, [w])
    sets = [(problem.make_inputs(w, torch.Generator(dev).manual_seed(100 + i), pool), problem.poisoned_outputs(w, dev))
            for i in range(n)]
    return sets, [lambda inp=inp, out=out: problem.call(fn, inp, out) for inp, out in sets]


def per_call(timer: GraphTimer, calls: list, poison=lambda: None) -> dict:
    """The graph of these calls, timed; the median and IQR divided by the number of calls.
    `poison` runs between the capture (whose warm call writes the outputs) and the replays."""
    graph = timer.capture(lambda: [c() for c in calls])
    poison()
    t = timer.time(graph)
    return {"median_us": t.median_us / len(calls), "iqr_us": t.iqr_us / len(calls), "graph_median_us": t.median_us,
            "calls": len(calls)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("variants")
    ap.add_argument("--batches", default="1,8")
    ap.add_argument("--context", type=int, default=131072)
    ap.add_argument("--calls", type=int, default=16)
    args = ap.parse_args()
    dev = torch.device("cuda", 0)
    timer = GraphTimer(dev, torch.cuda.get_device_properties(dev).L2_cache_size, reps=30)
    cache = Path("results/in_graph/cubins")
    launch_empty = empty_launch(cache, dev)
    report = {"floor": {"one_call": per_call(timer, [launch_empty]),
                        "in_graph": per_call(timer, [launch_empty] * args.calls)}, "variants": {}}
    print("floor", json.dumps(report["floor"]), flush=True)
    variants, sources, ahead = compiling_variants(args.variants, cache)
    for name, variant in variants.items():
        ahead.result(sources[name])  # built (or failed) into the cache build_entry reads
        fn = build_entry(sources[name], cache, dev)
        if fn is None:
            print(name, "skipped", flush=True)
            continue
        problem = SparseMlaDecode(variant.params["KV_FORMAT"])
        for b in map(int, args.batches.split(",")):
            w = Workload(f"b{b}_ctx{args.context // 1024}k", b, 128, 2048, args.context)
            sets, calls = calls_on_own_inputs(problem, w, dev, fn, args.calls)
            poison_all = lambda: [problem.poison(out) for _, out in sets]  # noqa: E731
            one = per_call(timer, calls[:1], poison_all)
            one_check = problem.check(*sets[0])[0] or "ok"
            many = per_call(timer, calls, poison_all)
            checked = [problem.check(inp, out) for inp, out in sets]
            checks = [failure or "ok" for failure, _ in checked]
            # the largest of each error figure over the calls: formats that round more show it here
            errors = {k: max(e[k] for _, e in checked) for k in checked[0][1]}
            report["variants"].setdefault(name, {})[w.name] = {"one_call": one, "in_graph": many, "checks": checks,
                                                              "one_call_check": one_check, "errors": errors,
                                                              "params": variant.params}
            bad = [c for c in [one_check] + checks if c != "ok"]
            print(f"{name} {w.name}: one call a graph {one['median_us']:.1f} us (iqr {one['iqr_us']:.1f}); "
                  f"{args.calls} in a graph {many['median_us']:.2f} us a call (iqr {many['iqr_us']:.2f}); "
                  f"checks {'all ok' if not bad else bad[0]}; "
                  + ", ".join(f"{k} max {v:.2e}" for k, v in errors.items()), flush=True)
            sets = calls = None  # the next batch's pool and inputs in their place
            torch.cuda.empty_cache()
    ahead.close()
    Path(os.environ.get("OUT", "/tmp"), "in_graph.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
