"""Whether a genome loses time when its code has been pushed out of the SMs' instruction caches:
each variant's one-call graph (the harness's method: the L2 rewritten before each replay), on its
own inputs and outputs,
  own          alone;
  + evictor    followed in the graph by a kernel of 512 KB of straight-line arithmetic on every SM
               (no memory traffic but its own code), the evictor's own graph's time taken off;
  + tail       followed by the decode layer's output projections (layer_inputs.py's `own + tail`),
               their own graph's time taken off.
The sixty-second session found the siblings' merge (240-350 KB of code, 35 KB without it) slower
beside the layer's kernels whichever tensors it was given, and with PDL off as well; the
evictor separates the code from every other thing a neighbouring kernel does. Each row's outputs
are checked against the float64 reference. A diagnostic, never a figure of the method.

Usage: python3 scripts/device/icache_probe.py VARIANTS.json [--batches 1,8] [--context 32768] [--repeats 2]
Writes $OUT/icache_probe.json.
"""
import json, os, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
import torch
from evaluators.bench import GraphTimer
from cuda_entry import (built_entries, each_layer_batch, each_variant_on, keep_row, layer_script_args, load_module,
                        timed_case)

EVICTOR_KB = 512


def evictor_source(kb: int) -> str:
    """A kernel of about ``kb`` KB of dependent FFMAs with distinct constants (nothing to fold or
    loop), whose one store never happens: it fetches its own code and touches no other memory."""
    lines = [f"  a = fmaf(a, {1 + (i % 97) * 1e-7:.9f}f, {(i % 89) * 1e-3:.6f}f); "
             f"b = fmaf(b, {1 - (i % 83) * 1e-7:.9f}f, a);" for i in range(kb * 1024 // 32)]
    return ('extern "C" __global__ void evict_icache(float* sink, float seed) {\n'
            "  float a = seed + threadIdx.x, b = a * 0.5f;\n" + "\n".join(lines)
            + "\n  if (a == 12345.678f) sink[threadIdx.x] = b;\n}\n")


def main():
    args = layer_script_args()
    dev = torch.device("cuda", 0)
    timer = GraphTimer(dev, torch.cuda.get_device_properties(dev).L2_cache_size, reps=30)
    cache = Path("results/icache_probe/cubins")
    variants, entries = built_entries(args.variants, cache, dev)
    evictor = load_module(evictor_source(EVICTOR_KB), cache, dev)
    sms = torch.cuda.get_device_properties(dev).multi_processor_count
    sink = torch.zeros(128, device=dev)
    evict = lambda: evictor.launch("evict_icache", (sms, 1, 1), 128, 0, sink.data_ptr(), np.float32(1.0))  # noqa: E731
    evict_us = timer.time(timer.capture(evict)).median_us
    rows = []
    for layer, x, w in each_layer_batch(args, dev):
        for rep in range(args.repeats):
            for name, fn, problem, inp in each_variant_on(w, variants, entries, dev):
                outputs = problem.poisoned_outputs(w, dev)
                tail = lambda: layer.project_out(x, outputs[0])  # noqa: E731
                tail_us = timer.time(timer.capture(tail)).median_us
                row = {"rep": rep, "variant": name, "workload": w.name, "evictor_alone": round(evict_us, 2),
                       "tail_alone": round(tail_us, 2)}
                for case, after, after_us in (("own", lambda: None, 0.0), ("+ evictor", evict, evict_us),
                                              ("+ tail", tail, tail_us)):
                    row |= timed_case(timer, problem, fn, inp, outputs, case, after, after_us)
                keep_row(rows, row)
    Path(os.environ.get("OUT", "/tmp"), "icache_probe.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
