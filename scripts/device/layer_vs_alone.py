"""Where a genome's time inside the decode layer departs from its time alone: for each variant and
batch, in one process, the attention's time
  alone         one call a graph (the harness's method);
  in 16         16 calls back to back in one graph, each on its own inputs, a call's share;
  layer         the decode layer's step with it, less the step without it (the e2e stage's figure);
  after query   a graph of the layer's query projection then the attention, less the projection's;
  before tail   a graph of the attention then the layer's output projection, less the projection's;
  empty before  a graph of an empty kernel then the attention, less the empty kernel's;
  empty after   a graph of the attention then an empty kernel, less the empty kernel's;
  copy before   a graph of a 16 MB device copy then the attention, less the copy's;
  alt 16        16 calls, each on its own inputs and each followed by an empty kernel, in one graph,
                less 16 empty kernels, a call's share;
and, for a variant that merges its splits as siblings, each figure again with its split kernel
launched without the cooperative attribute (`--no-coop` rows: the launcher's launch before the
fifteenth session), so that the attribute's share is measured, not guessed. Every graph is timed
as the harness times one (a 2x-L2 rewrite before each replay, events around it); every variant's
layer output is checked against the float64 reference. A diagnostic, never a figure of the method.

Usage: python3 scripts/device/layer_vs_alone.py VARIANTS.json [--batches 1,8] [--context 32768] [--repeats 2]
Writes $OUT/layer_vs_alone.json.
"""
import dataclasses, json, os, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
import evaluators.cuda_launch as cuda_launch
from evaluators.bench import GraphTimer
from evaluators.decode_layer import MODEL, DecodeLayer
from evaluators.problem import Workload
from evaluators.sparse_mla import SparseMlaDecode
from cuda_entry import built_entries, layer_script_args, empty_launch
from time_in_graph import calls_on_own_inputs

COOPERATIVE = [True]  # False: every launch of this process drops the cooperative attribute
_launch = cuda_launch.CubinModule.launch


def _launch_as_set(self, *args, cooperative: bool = False, **kwargs):
    return _launch(self, *args, cooperative=cooperative and COOPERATIVE[0], **kwargs)


def timed(timer: GraphTimer, call) -> float:
    return timer.time(timer.capture(call)).median_us


def measure(timer, problem, w, dev, fn, layer, x, empty, copy) -> dict:
    sets, calls = calls_on_own_inputs(problem, w, dev, fn, 16)
    inp, _ = sets[0]
    outputs = (layer.out, layer.lse)
    attend = lambda q: problem.call(fn, dataclasses.replace(inp, q=q), outputs)  # noqa: E731
    q0 = layer.query(x)

    def tail():
        return layer.project_out(x, layer.out)

    alone = timed(timer, calls[0])
    in16 = timed(timer, lambda: [c() for c in calls]) / 16
    graph = timer.capture(lambda: layer.step(x, attend))
    problem.poison(outputs)  # the checked outputs come from the timed replays
    step = timer.time(graph).median_us
    failure = problem.check(dataclasses.replace(inp, q=layer.q), outputs)[0]
    rest = timed(timer, lambda: layer.step(x, None))
    after_query = timed(timer, lambda: attend(layer.query(x))) - timed(timer, lambda: layer.query(x))
    before_tail = timed(timer, lambda: (attend(q0), tail())) - timed(timer, tail)
    empty_alone, copy_alone = timed(timer, empty), timed(timer, copy)
    empty_before = timed(timer, lambda: (empty(), calls[0]())) - empty_alone
    empty_after = timed(timer, lambda: (calls[0](), empty())) - empty_alone
    copy_before = timed(timer, lambda: (copy(), calls[0]())) - copy_alone
    alt16 = (timed(timer, lambda: [(c(), empty()) for c in calls]) - timed(timer, lambda: [empty() for _ in calls])) / 16
    return {"alone": alone, "in16": in16, "layer": step - rest, "step": step, "rest": rest,
            "after_query": after_query, "before_tail": before_tail, "empty_before": empty_before,
            "empty_after": empty_after, "copy_before": copy_before, "alt16": alt16, "check": failure or "ok"}


def main():
    args = layer_script_args()
    cuda_launch.CubinModule.launch = _launch_as_set  # this process's launches only
    dev = torch.device("cuda", 0)
    timer = GraphTimer(dev, torch.cuda.get_device_properties(dev).L2_cache_size, reps=30)
    cache = Path("results/layer_vs_alone/cubins")
    variants, entries = built_entries(args.variants, cache, dev)
    empty = empty_launch(cache, dev)
    src, dst = torch.ones(1 << 22, device=dev), torch.empty(1 << 22, device=dev)  # 16 MB each
    copy = lambda: dst.copy_(src)  # noqa: E731
    gen = torch.Generator(dev).manual_seed(3)
    layers = {b: DecodeLayer(MODEL, 128, b, dev, gen) for b in map(int, args.batches.split(","))}
    xs = {b: torch.randn(b, MODEL.hidden, generator=gen, device=dev).to(torch.bfloat16) for b in layers}
    rows = []
    for rep in range(args.repeats):
        for name, variant in variants.items():
            if entries[name] is None:
                continue
            problem = SparseMlaDecode(variant.params["KV_FORMAT"])
            modes = [True, False] if variant.params["COMBINE"] == "siblings" else [True]
            for coop in modes:
                COOPERATIVE[0] = coop
                for b, layer in layers.items():
                    w = Workload(f"b{b}_ctx{args.context // 1024}k", b, 128, 2048, args.context)
                    row = {"rep": rep, "variant": name + ("" if coop else " --no-coop"), "workload": w.name,
                           **measure(timer, problem, w, dev, entries[name], layer, xs[b], empty, copy)}
                    rows.append(row)
                    print(json.dumps({k: round(v, 2) if isinstance(v, float) else v for k, v in row.items()}),
                          flush=True)
                    torch.cuda.empty_cache()
            COOPERATIVE[0] = True
    Path(os.environ.get("OUT", "/tmp"), "layer_vs_alone.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
