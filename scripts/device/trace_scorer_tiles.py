"""Where a scorer genome's products phase spends its cycles, tile by tile: clock64 stamps in every
split CTA of the last of N calls in one graph (each call on its own inputs, as time_in_graph.py),
taken by the scorer's thread (tile t's rows in, its scores done, its P published) and by the first
thread of each value warpgroup (P(t) seen, its products issued, its tile u = t + 4 gathered, its
products done). With VALUE_ISSUE held, a pair's second tile gathers tile u before its products, so
its "gathered" stamp marks only the end of the products' issue. On FP8-656 rows the first value
thread also stamps, for the tile v it dequantizes, when its own copies of v are found in
(v0_copies_in) and when it has dequantized them and arrived on v's barrier (v0_converted). With
PAIRING = adaptive the scorer stamps a pair's scores and P on either of its paths (a pair scored
tile by tile when its second tile's rows are late); there a pair's first "rows in" stamp, and
both on the paired path, mark the scores' issue (their rows were found in before it); a gap
whose stamps are not both there (a lone last tile's scorer stamps) is left out. Per batch it
prints, for each tile, the median over the CTAs of each stamp in cycles from the CTA's first
instruction, and the medians of the gaps that make up a tile:
  rows_wait   the first tile of a pair: from the previous pair's last P published to the
              tile's rows found in (the second tile's rows are waited for while the first
              tile's scores are issued, so it has none)
  scores      tile t's score products, from their issue to the wait that found them done
  softmax     the scorer's softmax of tile t (P and its maximum published)
  p_to_value  from P(t) published to value warpgroup 0 seeing it
  values      value warpgroup 0's products of tile t, issue to done (its gather of tile t + 4 in
              between)
A diagnostic: the stamps add a few instructions a tile; nothing is timed by them.

Usage: python3 scripts/device/trace_scorer_tiles.py VARIANTS.json [--batches 8,128] [--context 131072]
       [--calls 16]
VARIANTS.json as for time_cuda_genomes.py (scripts/device/variants.py); SCHEDULE = scorer only.
Writes $OUT/scorer_tiles.json.
"""
import json, os, statistics, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
from evaluators.problem import Workload
from evaluators.sparse_mla import SparseMlaDecode
from probed import capture_calls, l2_scrub, place_probes, probed_builds, probed_sources, trace_arguments
from time_in_graph import calls_on_own_inputs

MAX_CTAS = 512
MAX_TILES = 64
EVENTS = ["rows_in", "scores_done", "p_published", "v0_p_seen", "v0_issued", "v0_gathered", "v0_done",
          "v1_p_seen", "v1_done", "v0_copies_in", "v0_converted"]
FP8_EVENTS = ("v0_copies_in", "v0_converted")  # stamped by tile v's dequantization, FP8-656 rows only
NE = len(EVENTS) + 1  # slot 0 of a CTA's row 0: its first instruction

HEADER = r"""
__device__ long long kg_tiles[{n}];
extern "C" __global__ void kg_tiles_read(long long* out, int n) {{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {{
    out[i] = kg_tiles[i];
    kg_tiles[i] = 0;
  }}
}}
__device__ __forceinline__ void kg_stamp(int t, int e) {{
  if (t < {tiles}) {{
    const int cta = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    if (cta < {ctas}) kg_tiles[((size_t)cta * {tiles} + t) * {ne} + e] = clock64();
  }}
}}
"""


def ev(name: str) -> int:
    return EVENTS.index(name) + 1


PROBES = [  # (anchor, replacement) in the rendered source of a scorer genome
    ("#include <stdint.h>\n", "#include <stdint.h>\n" + HEADER.format(n=MAX_CTAS * MAX_TILES * NE, tiles=MAX_TILES,
                                                                      ctas=MAX_CTAS, ne=NE)),
    ("  allow_dependent_launch();\n  static_assert(HPC == 64",
     "  allow_dependent_launch();\n  if (threadIdx.x == 0) kg_stamp(0, 0);\n  static_assert(HPC == 64"),
    ("      if (wait) mbar_wait(bar_full + 8 * (t % BUFS), (t / BUFS) & 1);\n      async_proxy_fence();\n      wg_fence();\n"
     "      // k-step kk's",
     "      if (wait) mbar_wait(bar_full + 8 * (t % BUFS), (t / BUFS) & 1);\n"
     f"      if (tid == 256) kg_stamp(t, {ev('rows_in')});\n"
     "      async_proxy_fence();\n      wg_fence();\n      // k-step kk's"),
    ("      wg_wait1();\n      finish_tile(2 * j, sa, fa);\n      wg_wait0();\n      finish_tile(2 * j + 1, sb, fb);\n",
     f"      wg_wait1();\n      if (tid == 256) kg_stamp(2 * j, {ev('scores_done')});\n      finish_tile(2 * j, sa, fa);\n"
     f"      if (tid == 256) kg_stamp(2 * j, {ev('p_published')});\n"
     f"      wg_wait0();\n      if (tid == 256) kg_stamp(2 * j + 1, {ev('scores_done')});\n"
     f"      finish_tile(2 * j + 1, sb, fb);\n      if (tid == 256) kg_stamp(2 * j + 1, {ev('p_published')});\n"),
    ("      await_p(t, m);\n",
     f"      await_p(t, m);\n      if (tid == 0) kg_stamp(t, {ev('v0_p_seen')});\n"
     f"      if (tid == 128) kg_stamp(t, {ev('v1_p_seen')});\n"),
    ("      accumulate(t, m);\n", f"      accumulate(t, m);\n      if (tid == 0) kg_stamp(t, {ev('v0_issued')});\n"),
    ("      wg_wait0();\n      pin_registers(o);\n      mbar_arrive(bar_free + 8 * (t % BUFS));\n",
     f"      if (tid == 0) kg_stamp(t, {ev('v0_gathered')});\n      wg_wait0();\n      pin_registers(o);\n"
     f"      if (tid == 0) kg_stamp(t, {ev('v0_done')});\n      if (tid == 128) kg_stamp(t, {ev('v1_done')});\n"
     "      mbar_arrive(bar_free + 8 * (t % BUFS));\n"),
]


ADAPTIVE_PROBES = [  # PAIRING = adaptive: the scores and P of a pair scored tile by tile (its unpaired path)
    ("        flags_of(2 * j, fa);\n        wg_wait0();\n        finish_tile(2 * j, sa, fa);\n",
     f"        flags_of(2 * j, fa);\n        wg_wait0();\n        if (tid == 256) kg_stamp(2 * j, {ev('scores_done')});\n"
     f"        finish_tile(2 * j, sa, fa);\n        if (tid == 256) kg_stamp(2 * j, {ev('p_published')});\n"),
    ("        flags_of(2 * j + 1, fb);\n        wg_wait0();\n        finish_tile(2 * j + 1, sb, fb);\n        continue;\n",
     f"        flags_of(2 * j + 1, fb);\n        wg_wait0();\n        if (tid == 256) kg_stamp(2 * j + 1, {ev('scores_done')});\n"
     f"        finish_tile(2 * j + 1, sb, fb);\n        if (tid == 256) kg_stamp(2 * j + 1, {ev('p_published')});\n"
     "        continue;\n"),
]


FP8_PROBES = [  # the value threads' dequantization of tile v (the scorer schedule on FP8-656 rows)
    ("        default: wait_copies<4>(); break;\n      }\n      // the row's scales",
     "        default: wait_copies<4>(); break;\n      }\n"
     f"      if (tid == 0) kg_stamp(v, {ev('v0_copies_in')});\n      // the row's scales"),
    ("      mbar_arrive(bar_full + 8 * (v % BUFS));\n    };\n",
     f"      mbar_arrive(bar_full + 8 * (v % BUFS));\n      if (tid == 0) kg_stamp(v, {ev('v0_converted')});\n    }};\n"),
]


def instrument(source: str, what: str = "the source", kv_format: str = "bf16", pairing: str = "fixed") -> str:
    """The source with every probe placed (on FP8-656 rows the dequantization's too, with adaptive
    pairs the unpaired path's too); each anchor must occur exactly once."""
    return place_probes(source, PROBES + (FP8_PROBES if kv_format == "fp8_656" else [])
                        + (ADAPTIVE_PROBES if pairing == "adaptive" else []), what)


def per_tile(stamps: torch.Tensor, ctas: int) -> list[dict]:
    """Per tile: each event's median over the CTAs that stamped it, in cycles from the CTA's start,
    and the medians of the gaps named in the docstring."""
    rows = stamps.view(MAX_CTAS, MAX_TILES, NE)[:ctas].tolist()
    out = []
    for t in range(MAX_TILES):
        per_cta = [(r[0][0], r[t], r[t - 1] if t else None) for r in rows if r[0][0] and r[t][ev("rows_in")]]
        if not per_cta:
            break
        tile = {}
        for name in EVENTS:
            v = [x[ev(name)] - s for s, x, _ in per_cta if x[ev(name)]]
            if v:
                tile[name] = statistics.median(v)
        # a gap only where both of its stamps were taken (a lone last tile has no scorer stamps)
        gaps = {
            "rows_wait": [x[ev("rows_in")] - (p[ev("p_published")] if p else s) for s, x, p in per_cta
                          if t % 2 == 0 and (p is None or p[ev("p_published")])],
            "scores": [x[ev("scores_done")] - x[ev("rows_in")] for s, x, _ in per_cta if x[ev("scores_done")]],
            "softmax": [x[ev("p_published")] - x[ev("scores_done")] for s, x, _ in per_cta
                        if x[ev("p_published")] and x[ev("scores_done")]],
            "p_to_value": [x[ev("v0_p_seen")] - x[ev("p_published")] for s, x, _ in per_cta
                           if x[ev("v0_p_seen")] and x[ev("p_published")]],
            "values": [x[ev("v0_done")] - x[ev("v0_issued")] for s, x, _ in per_cta if x[ev("v0_done")]],
        }
        tile["gaps"] = {k: statistics.median(v) for k, v in gaps.items() if v}
        out.append(tile)
    return out


def main(argv=None):
    args = trace_arguments("8,128").parse_args(argv)
    variants, sources = probed_sources(
        args.variants,
        lambda params: None if params.get("SCHEDULE") == "scorer" else
        f"SCHEDULE = {params.get('SCHEDULE')}: the probes are placed in the scorer schedule's code only",
        lambda variant, what: instrument(variant.render(), what, variant.params["KV_FORMAT"],
                                         variant.params["PAIRING"]))
    import numpy as np

    dev = torch.device("cuda", 0)
    scrub = l2_scrub(dev)
    report = {}
    for name, module, fn in probed_builds(sources, Path("results/trace_scorer_tiles/cubins"), dev):
        stamps_buf = torch.zeros(MAX_CTAS * MAX_TILES * NE, dtype=torch.int64, device=dev)

        def read_stamps():
            module.launch("kg_tiles_read", (264, 1, 1), 256, 0, stamps_buf.data_ptr(), np.int32(stamps_buf.numel()))
            torch.cuda.synchronize()
            return stamps_buf.cpu()

        read_stamps()  # cleared before the graph's calls
        problem = SparseMlaDecode(variants[name].params["KV_FORMAT"])
        for b in map(int, args.batches.split(",")):
            w = Workload(f"b{b}_ctx{args.context // 1024}k", b, 128, 2048, args.context)
            sets, calls = calls_on_own_inputs(problem, w, dev, fn, args.calls)
            graph = capture_calls(calls, dev)
            for _ in range(2):  # the second replay's last call is the one read
                for _, out in sets:
                    problem.poison(out)
                scrub.add_(1.0)
                graph.replay()
            torch.cuda.synchronize()
            checks = sorted({problem.check(inp, out)[0] or "ok" for inp, out in sets})
            stamps = read_stamps()
            ctas = int((stamps.view(MAX_CTAS, MAX_TILES, NE)[:, 0, 0] != 0).sum())
            tiles = per_tile(stamps, ctas)
            report.setdefault(name, {})[w.name] = {"checks": checks, "ctas": ctas, "tiles": tiles}
            print(f"{name} {w.name}: {ctas} CTAs, checks {checks}", flush=True)
            for t, tile in enumerate(tiles):
                print(f"  tile {t:2d}: " + " ".join(f"{k}={tile[k]:.0f}" for k in EVENTS if k in tile) + " | " +
                      " ".join(f"{k}={v:.0f}" for k, v in tile["gaps"].items()), flush=True)
            sets = calls = graph = None
            torch.cuda.empty_cache()
    Path(os.environ.get("OUT", "/tmp"), "scorer_tiles.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
