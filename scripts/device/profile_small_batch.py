"""Where the time of a small-batch call goes: per-kernel device durations (torch.profiler) beside
the harness's graph timing, for chosen CUDA genomes, plus the floor of the timing method itself
(a graph of one and of two empty kernels, timed the same way, cold L2 included).

Usage: python3 scripts/device/profile_small_batch.py VARIANTS.json [--batches 1,8] [--context 32768] [--clean-flush]
VARIANTS.json maps a name to gene changes from the space's defaults, or to {"genes": {...}, "edits":
[[old, new], ...], "template": PATH}, each field optional (scripts/device/variants.py says what each
means): the genes rendered by another text of the CUDA template (an edited copy, to time what an
edit costs), or the rendered source edited. --clean-flush also times every graph after a flush
that only reads its buffer: a diagnostic of what the method's dirty L2 (write-backs of the lines a
call evicts) costs a call, never a figure of the method. Writes $OUT/small_batch.json.
"""
import argparse, json, os, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
from engine.template import load_template
from evaluators.bench import GraphTimer
from evaluators.sparse_mla import SparseMlaDecode
from evaluators.problem import Workload
from cuda_entry import build_entry, empty_launch
from variants import load_variants


class CleanFlushTimer(GraphTimer):
    """Diagnostic only: the flush reads its buffer, so the L2 starts cold but clean."""

    def _flush(self, first: bool) -> None:
        self.flush.sum()


def kernel_times(call, reps=20):
    """Median device time of each kernel name over `reps` eager calls."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            call()
        torch.cuda.synchronize()
    times = {}
    for ev in prof.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA:
            times.setdefault(ev.name, []).append(ev.device_time)
    return {k: sorted(v)[len(v) // 2] for k, v in times.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("variants")
    ap.add_argument("--batches", default="1,8")
    ap.add_argument("--context", type=int, default=32768)
    ap.add_argument("--clean-flush", action="store_true")
    args = ap.parse_args()
    dev = torch.device("cuda", 0)
    timer = GraphTimer(dev, torch.cuda.get_device_properties(dev).L2_cache_size, reps=50)
    clean = CleanFlushTimer(dev, torch.cuda.get_device_properties(dev).L2_cache_size, reps=50) if args.clean_flush else None
    cache = Path("results/profile/cubins")
    report = {"floor": {}, "variants": {}}
    launch_empty = empty_launch(cache, dev)
    for n in (1, 2):
        g = timer.capture(lambda: [launch_empty() for _ in range(n)])
        report["floor"][f"{n}_empty_kernels"] = timer.time(g).__dict__
        if clean:
            report["floor"][f"{n}_empty_kernels_clean_flush"] = clean.time(g).__dict__
    print("floor", json.dumps(report["floor"]), flush=True)
    t = load_template(Path("templates/sparse_mla.cu.j2"))
    for name, variant in load_variants(args.variants, t, language="cuda").items():
        p = variant.params
        fn = build_entry(variant.render(), cache, dev)
        if fn is None:
            print(name, "skipped", flush=True)
            continue
        problem = SparseMlaDecode(p["KV_FORMAT"])
        for b in map(int, args.batches.split(",")):
            w = Workload(f"b{b}", b, 128, 2048, args.context)
            inp = problem.make_inputs(w, torch.Generator(dev).manual_seed(1), problem.new_pool(dev, [w]))
            out, lse = problem.poisoned_outputs(w, dev)
            call = lambda: problem.call(fn, inp, (out, lse))
            call(); torch.cuda.synchronize()
            failure, errs = problem.check(inp, (out, lse))
            graph = timer.capture(call)
            timing = timer.time(graph)
            clean_timing = clean.time(graph) if clean else None
            kt = kernel_times(call)
            report["variants"].setdefault(name, {})[w.name] = {
                "check": failure or "ok", "graph": timing.__dict__, "kernels_us": kt, "params": p,
                **({"graph_clean_flush": clean_timing.__dict__} if clean else {})}
            print(f"{name} {w.name} {failure or 'ok'} graph median {timing.median_us:.1f} us "
                  f"(iqr {timing.iqr_us:.1f})"
                  + (f" clean-flush {clean_timing.median_us:.1f} (iqr {clean_timing.iqr_us:.1f})" if clean else "")
                  + f" kernels {json.dumps({k[:40]: round(v, 1) for k, v in kt.items()})}", flush=True)
            del inp
            torch.cuda.empty_cache()
    Path(os.environ.get("OUT", "/tmp"), "small_batch.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
