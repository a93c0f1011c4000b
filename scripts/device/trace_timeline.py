"""When each part of a scorer genome's call happens, as a model's decode step sees it: N calls in
one graph (each on its own inputs, as time_in_graph.py), the split and combine kernels
instrumented with %globaltimer stamps, the graph replayed after a 2x-L2 rewrite (as the harness's
timer leaves the L2). Per call, over its split CTAs (median and maximum): the CTA's start, the
queries in (scorer), the first tile's rows in (scorer), the scorer's last softmax done, the value
warpgroups' first four tiles' copies issued, their first P, their last products done, and their
epilogue's stores issued (thread 0 of the CTA; with COMBINE = siblings, its merge done), and with
COMBINE = siblings its arrival (after its partial stores) and the moment it saw every sibling
arrived, and its release from griddepcontrol.wait (thread 0: when the previous call's grid was
complete and its writes visible); over its combine CTAs (COMBINE = separate; minimum and maximum): the start, the release
from griddepcontrol.wait, the end (thread 0). In us from the first call's first CTA start. The
last call's split CTAs are also listed one by one, with their blockIdx.

The stamps go into the cubin's own __device__ arrays, a slot a CTA taken with an atomic (so the N
calls' CTAs never share one; a call's slots are consecutive since its kernels run in stream
order); a kernel of the script copies them out and clears them. A diagnostic: the probes add a
few instructions a phase; the first replay warms the graph and is not reported.

Usage: python3 scripts/device/trace_timeline.py VARIANTS.json [--batches 1,8] [--context 131072]
       [--calls 16] [--replays 3]
VARIANTS.json as for time_cuda_genomes.py (scripts/device/variants.py); SCHEDULE = scorer with
COMBINE = separate or siblings only (anything else is refused before any GPU work). Writes
$OUT/timeline.json.
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

MAIN_EVENTS = ["start", "q_in", "first_tile_in", "scorer_done", "gathers_issued", "first_p", "values_done",
               "stored", "arrived", "all_arrived",  # these two: COMBINE = siblings
               "released"]  # out of griddepcontrol.wait; last, so that the events above keep their slots
COMBINES = ("separate", "siblings")
MERGE_EVENTS = ["start", "released", "end"]
MAX_CTAS = 64 * 1024  # slots of each kernel's stamps, over all calls of a replay

HEADER = r"""
__device__ unsigned long long kg_tl_main[{main}];
__device__ unsigned long long kg_tl_merge[{merge}];
__device__ unsigned int kg_tl_seq[2];
__shared__ unsigned kg_slot;  // this CTA's slot of kg_tl_main
__device__ __forceinline__ unsigned long long kg_now() {{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}}
extern "C" __global__ void kg_tl_read(unsigned long long* main_out, unsigned long long* merge_out, int n_main,
                                      int n_merge) {{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n_main; i += gridDim.x * blockDim.x) {{
    main_out[i] = kg_tl_main[i];
    kg_tl_main[i] = 0ull;
  }}
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n_merge; i += gridDim.x * blockDim.x) {{
    merge_out[i] = kg_tl_merge[i];
    kg_tl_merge[i] = 0ull;
  }}
  if (blockIdx.x == 0 && threadIdx.x < 2) kg_tl_seq[threadIdx.x] = 0u;
}}
"""

NM, NG = len(MAIN_EVENTS) + 1, len(MERGE_EVENTS)  # a split CTA's slot ends with its blockIdx (x | y << 16 | z << 32)
PROBES = [  # (anchor, replacement) in the rendered source of a scorer genome, whatever its merge
    ("#include <stdint.h>\n", "#include <stdint.h>\n" + HEADER.format(main=MAX_CTAS * NM, merge=MAX_CTAS * NG)),
    ("  allow_dependent_launch();\n  static_assert(HPC == 64",
     "  allow_dependent_launch();\n  const unsigned long long kg_t0 = kg_now();\n"
     "  static_assert(HPC == 64"),
    ("    if (SCORER) mbar_init(bar_done, 128);\n",
     "    if (SCORER) mbar_init(bar_done, 128);\n    kg_slot = atomicAdd(&kg_tl_seq[0], 1u);\n"),
    ("  wait_for_prior_grid();  // nothing global was read or written above\n\n  if (wg == 2) {",
     f"  unsigned long long* kg_ev = kg_tl_main + (size_t)kg_slot * {NM};\n"
     "  wait_for_prior_grid();  // nothing global was read or written above\n  if (tid == 0) {\n    kg_ev[0] = kg_t0;\n"
     f"    kg_ev[{MAIN_EVENTS.index('released')}] = kg_now();\n"
     f"    kg_ev[{NM - 1}] = blockIdx.x | ((unsigned long long)blockIdx.y << 16) | ((unsigned long long)blockIdx.z << 32);\n"
     "  }\n\n  if (wg == 2) {"),
    ("    mbar_wait(bar_q, 0);\n    // this warp's 16 heads",
     "    mbar_wait(bar_q, 0);\n    if (tid == 256) kg_ev[1] = kg_now();\n    // this warp's 16 heads"),
    ("      if (wait) mbar_wait(bar_full + 8 * (t % BUFS), (t / BUFS) & 1);\n      async_proxy_fence();\n      wg_fence();\n"
     "      // k-step kk's",
     "      if (wait) mbar_wait(bar_full + 8 * (t % BUFS), (t / BUFS) & 1);\n      if (t == 0 && tid == 256) kg_ev[2] = kg_now();\n"
     "      async_proxy_fence();\n      wg_fence();\n      // k-step kk's"),
    ("    mbar_arrive(bar_done);\n", "    if (tid == 256) kg_ev[3] = kg_now();\n    mbar_arrive(bar_done);\n"),
    ("    int ids_next[PASSES];\n", "    if (tid == 0) kg_ev[4] = kg_now();\n    int ids_next[PASSES];\n"),
    ("      await_p(t, m);\n", "      await_p(t, m);\n      if (t == 0 && tid == 0) kg_ev[5] = kg_now();\n"),
    ("    mbar_wait(bar_done, 0);\n", "    mbar_wait(bar_done, 0);\n    if (tid == 0) kg_ev[6] = kg_now();\n"),
    ("  // tid < 256 here\n  }\n}\n", "  // tid < 256 here\n    if (tid == 0) kg_ev[7] = kg_now();\n  }\n}\n"),
]
PROBES_BY_COMBINE = {
  "separate": [  # the combine kernel's start, release and end
    ("                          __nv_bfloat16* __restrict__ out, float* __restrict__ lse, int heads, int num_splits) {\n",
     "                          __nv_bfloat16* __restrict__ out, float* __restrict__ lse, int heads, int num_splits) {\n"
     "  const unsigned long long kg_t0 = kg_now();\n"),
    ("  kg::merge_head(part_out, part_lse, out, lse, blockIdx.y, blockIdx.x, heads, num_splits);\n",
     "  const unsigned long long kg_t1 = kg_now();\n"
     "  kg::merge_head(part_out, part_lse, out, lse, blockIdx.y, blockIdx.x, heads, num_splits);\n"
     "  if (threadIdx.x == 0) {\n    const unsigned s = atomicAdd(&kg_tl_seq[1], 1u);\n"
     f"    kg_tl_merge[(size_t)s * {NG}] = kg_t0; kg_tl_merge[(size_t)s * {NG} + 1] = kg_t1;\n"
     f"    kg_tl_merge[(size_t)s * {NG} + 2] = kg_now();\n  }}\n"),
  ],
  "siblings": [  # thread 0 in the siblings' wait: its arrival, and every sibling seen arrived
    ("  if (tid == 0) {\n    add_release(count, 1);\n",
     f"  if (tid == 0) {{\n    kg_tl_main[(size_t)kg_slot * {NM} + 8] = kg_now();\n    add_release(count, 1);\n"),
    ("    ticket = atomicAdd(count + 1, 1);",
     f"    kg_tl_main[(size_t)kg_slot * {NM} + 9] = kg_now();\n    ticket = atomicAdd(count + 1, 1);"),
  ],
}


def instrument(source: str, what: str = "the source", combine: str = "separate") -> str:
    """The source with every probe of its merge (COMBINE) placed; each anchor must occur exactly once."""
    return place_probes(source, PROBES + PROBES_BY_COMBINE[combine], what)


def slots_by_call(stamps: torch.Tensor, stride: int, calls: int) -> list[torch.Tensor]:
    """The stamped slots of each call (slots in launch order, a call's CTAs consecutive)."""
    rows = stamps.view(-1, stride)
    used = rows[rows[:, 0] > 0]  # every CTA stamps its first event
    per = len(used) // calls
    return [used[c * per:(c + 1) * per] for c in range(calls)]


def summarize(stamps: torch.Tensor, stride: int, n_events: int, calls: int, t0: int) -> list[dict]:
    """Per call: each of the first n_events events' minimum, median and maximum over the CTAs that
    stamped it, in us from t0."""
    out = []
    for part in slots_by_call(stamps, stride, calls):
        call = {}
        for e in range(n_events):
            v = [(int(x) - t0) / 1000 for x in part[:, e].tolist() if x > 0]
            if v:
                call[e] = {"min": min(v), "median": statistics.median(v), "max": max(v)}
        out.append(call)
    return out


def main(argv=None):
    ap = trace_arguments("1,8")
    ap.add_argument("--replays", type=int, default=3)
    args = ap.parse_args(argv)
    variants, sources = probed_sources(
        args.variants,
        lambda params: None if params.get("SCHEDULE") == "scorer" and params.get("COMBINE") in COMBINES else
        f"SCHEDULE = {params.get('SCHEDULE')}, COMBINE = {params.get('COMBINE')}: the probes are placed in the "
        "scorer's code, the separate combine kernel and the siblings' wait; trace scorer genomes with "
        f"COMBINE in {COMBINES} only",
        lambda variant, what: instrument(variant.render(), what, variant.params["COMBINE"]))
    import numpy as np

    dev = torch.device("cuda", 0)
    scrub = l2_scrub(dev)
    report = {}
    for name, module, fn in probed_builds(sources, Path("results/trace_timeline/cubins"), dev):
        problem = SparseMlaDecode(variants[name].params["KV_FORMAT"])
        main_buf = torch.zeros(MAX_CTAS * NM, dtype=torch.int64, device=dev)
        merge_buf = torch.zeros(MAX_CTAS * NG, dtype=torch.int64, device=dev)

        def read_and_clear():
            module.launch("kg_tl_read", (264, 1, 1), 256, 0, main_buf.data_ptr(), merge_buf.data_ptr(),
                          np.int32(MAX_CTAS * NM), np.int32(MAX_CTAS * NG))

        for b in map(int, args.batches.split(",")):
            w = Workload(f"b{b}_ctx{args.context // 1024}k", b, 128, 2048, args.context)
            sets, calls = calls_on_own_inputs(problem, w, dev, fn, args.calls)
            graph = capture_calls(calls, dev)
            replays = []
            for r in range(args.replays + 1):
                read_and_clear()
                for _, out in sets:
                    problem.poison(out)
                scrub.add_(1.0)  # the L2 full of other dirty lines, as the harness's timer leaves it
                graph.replay()
                torch.cuda.synchronize()
                checks = sorted({problem.check(inp, out)[0] or "ok" for inp, out in sets})
                read_and_clear()
                torch.cuda.synchronize()
                if r == 0:
                    continue  # the first replay warms the graph
                replays.append(timeline(main_buf.cpu(), merge_buf.cpu(), args.calls, checks))
                print_replay(f"{name} {w.name} replay {r}", replays[-1], args.calls)
            report.setdefault(name, {})[w.name] = replays
            sets = calls = graph = None
            torch.cuda.empty_cache()
    Path(os.environ.get("OUT", "/tmp"), "timeline.json").write_text(json.dumps(report, indent=1))


def timeline(main_stamps: torch.Tensor, merge_stamps: torch.Tensor, calls: int, checks: list) -> dict:
    starts = main_stamps.view(-1, NM)[:, 0]
    t0 = int(starts[starts > 0].min())
    steps = sorted({int(x) - t0 for x in starts.tolist() if x > t0})
    return {"checks": checks, "smallest_start_step_ns": steps[0] if steps else None,
            "main": [{MAIN_EVENTS[e]: v for e, v in c.items()}
                     for c in summarize(main_stamps, NM, NM - 1, calls, t0)],
            "merge": [{MERGE_EVENTS[e]: v for e, v in c.items()} for c in summarize(merge_stamps, NG, NG, calls, t0)],
            # every split CTA of the last call: blockIdx (x, y, z), then each event in us from t0
            "last_call_ctas": [[int(r[-1]) & 0xffff, (int(r[-1]) >> 16) & 0xffff, int(r[-1]) >> 32] +
                               [round((int(x) - t0) / 1000, 3) if x > 0 else None for x in r[:-1].tolist()]
                               for r in slots_by_call(main_stamps, NM, calls)[-1]]}


def print_replay(title: str, replay: dict, calls: int) -> None:
    # the last call ends with its last combine CTA, or (siblings: no combine CTA) its last split CTA's merge
    last_merge = replay["merge"][-1]
    end = last_merge["end"]["max"] if last_merge else replay["main"][-1]["stored"]["max"]
    print(f"{title}: {calls} calls end at {end:.2f} us ({end / calls:.2f} a call); checks {replay['checks']}",
          flush=True)
    for c in range(calls):
        mc, gc = replay["main"][c], replay["merge"][c]
        print("  call %2d main (median/max): %s | merge (min/max): %s" % (c, " ".join(
            f"{k}={v['median']:.2f}/{v['max']:.2f}" for k, v in mc.items()), " ".join(
            f"{k}={v['min']:.2f}/{v['max']:.2f}" for k, v in gc.items())), flush=True)


if __name__ == "__main__":
    main()
