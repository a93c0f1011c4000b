"""Which of the decode layer's tensors makes a genome slower than on its own inputs: each variant's
one-call graph (the harness's method), on its own inputs and outputs, then with one thing at a
time taken from the layer (batch B, ctx 32K):
  own          its own query, cache rows, top-k lists and outputs;
  q layer      the layer's query tensor (made by the layer's projections before the graph);
  q values     a fresh buffer holding the layer's query values;
  q address    the layer's query buffer, refilled with random values of its own query's scale;
  q scaled     its own query scaled by 2 and by 0.5 (the logits' spread, which the online
               softmax's rescales and the merge's maxima follow);
  out layer    the layer's out and lse buffers;
  both         the layer's query and its out and lse buffers (what the layer's step passes);
  own + tail   its own inputs and outputs, then the layer's output projections on its own out (a
               graph of the three; the projections' own graph's time taken off);
  both + tail  the layer's query and outputs, then the output projections (layer_vs_alone's
               `before tail`).
Each row's outputs are checked against the float64 reference. The sixtieth session found the
siblings' merge 5-10 us slower inside the layer, and the sixty-first's trace found its kernel
itself slower there, beside no other kernel's change. A diagnostic, never a figure of the method.

Usage: python3 scripts/device/layer_inputs.py VARIANTS.json [--batches 1,8] [--context 32768] [--repeats 2]
Writes $OUT/layer_inputs.json.
"""
import dataclasses, json, os, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
from evaluators.bench import GraphTimer
from cuda_entry import built_entries, each_layer_batch, each_variant_on, keep_row, layer_script_args, timed_case


def main():
    args = layer_script_args()
    dev = torch.device("cuda", 0)
    timer = GraphTimer(dev, torch.cuda.get_device_properties(dev).L2_cache_size, reps=30)
    cache = Path("results/layer_inputs/cubins")
    variants, entries = built_entries(args.variants, cache, dev)
    rows = []
    for layer, x, w in each_layer_batch(args, dev):
        q_layer = layer.query(x)

        def tail(out, layer=layer, x=x):  # the layer's output projections (its step after the attention)
            return layer.project_out(x, out)

        for rep in range(args.repeats):
            for name, fn, problem, inp in each_variant_on(w, variants, entries, dev):
                own = problem.poisoned_outputs(w, dev)
                layer_out = (layer.out, layer.lse)
                cases = {
                    "own": (inp.q, own),
                    "q layer": (q_layer, own),
                    "q values": (q_layer.clone(), own),
                    "q address": (None, own),
                    "q x2": ((inp.q.float() * 2).to(torch.bfloat16), own),
                    "q x0.5": ((inp.q.float() * 0.5).to(torch.bfloat16), own),
                    "out layer": (inp.q, layer_out),
                    "both": (q_layer, layer_out),
                }
                row = {"rep": rep, "variant": name, "workload": w.name,
                       "q_layer_std": round(q_layer.float().std().item(), 3), "q_own_std": round(inp.q.float().std().item(), 3)}
                tails = {}
                for which, out in (("own", own[0]), ("layer", layer.out)):
                    tails[which] = (lambda out=out: tail(out), timer.time(timer.capture(lambda out=out: tail(out))).median_us)
                cases["own + tail"] = (inp.q, own)
                cases["both + tail"] = (q_layer, layer_out)
                for case, (q, outputs) in cases.items():
                    if q is None:  # the layer's own buffer, its values swapped for random ones, restored after
                        saved = q_layer.clone()
                        q_layer.copy_(inp.q)
                        q = q_layer
                    case_inp = dataclasses.replace(inp, q=q)
                    after, after_us = tails["own" if case == "own + tail" else "layer"] if "tail" in case else (lambda: None, 0.0)
                    row |= timed_case(timer, problem, fn, case_inp, outputs, case, after, after_us)
                    if case == "q address":
                        q_layer.copy_(saved)
                keep_row(rows, row)
    Path(os.environ.get("OUT", "/tmp"), "layer_inputs.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
