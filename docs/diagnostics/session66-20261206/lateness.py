"""Is a sibling's lateness at B=8 systematic (the same CTA, split, token or head block late in every
replay) or random? Read from the fortieth session's recorded timeline (H200, 16 calls in a graph,
the last call's CTAs one by one, three replays); no GPU. Sixty-sixth session; run from the
repository root: python3 docs/diagnostics/session66-20261206/lateness.py"""
import json
import math
import random
import statistics as st
from pathlib import Path

TIMELINE = Path("docs/diagnostics/h200-session40-20261204/call2-timeline.json")
EVENTS = ["start", "q_in", "first_tile_in", "scorer_done", "gathers_issued", "first_p", "values_done", "stored",
          "arrived", "all_arrived", "released"]  # scripts/device/trace_timeline.py's MAIN_EVENTS


def corr(a, b):
    ma, mb = st.mean(a), st.mean(b)
    return sum((x - ma) * (y - mb) for x, y in zip(a, b)) / math.sqrt(
        sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b))


def group_end(starts: list[float], shared: bool, tiles: int = 64, tile_us: float = 0.8, rng=None) -> float:
    """When a group of siblings that start at ``starts`` ends its ``tiles`` tiles: each sibling its
    equal share (today), or (``shared``) each takes the group's next tile whenever it finishes one,
    claimed two tiles ahead as the gathers run ahead of the products. Tile times vary by 3%."""
    import heapq

    claimed = 2 * len(starts) if shared else tiles
    queue = [2 if shared else tiles // len(starts)] * len(starts)
    heap = [(s, i) for i, s in enumerate(starts)]
    heapq.heapify(heap)
    end = 0.0
    while heap:
        now, i = heapq.heappop(heap)
        if queue[i] == 0:
            end = max(end, now)
            continue
        queue[i] -= 1
        if shared and claimed < tiles:
            queue[i] += 1
            claimed += 1
        heapq.heappush(heap, (now + tile_us * rng.gauss(1, 0.03), i))
    return end


for variant, shapes in json.loads(TIMELINE.read_text()).items():
    replays = []
    for replay in shapes["b8_ctx128k"]:
        # blockIdx (x: head block, y: split, z: token), then the events in us; each from its CTA's release
        replays.append({tuple(c[:3]): {e: c[3 + i] - c[3 + EVENTS.index("released")] for i, e in enumerate(EVENTS)}
                        for c in replay["last_call_ctas"]})
    keys = sorted(replays[0])
    for event in ("first_tile_in", "arrived"):
        series = [[r[k][event] for k in keys] for r in replays]
        print(f"{variant}, {event}: {min(series[0]):.2f}-{max(series[0]):.2f} us after the release; the same "
              f"CTA across replays correlates {corr(series[0], series[1]):.2f} and {corr(series[1], series[2]):.2f}")
        for axis, name in ((1, "split"), (2, "token"), (0, "head block")):
            means = {}
            for k in keys:
                means.setdefault(k[axis], []).append(replays[1][k][event])
            print(f"  mean by {name}: " + " ".join(f"{st.mean(v):.2f}" for _, v in sorted(means.items())))
    groups = {}
    for k in keys:
        groups.setdefault((k[0], k[2]), []).append(replays[1][k])
    for event in ("first_tile_in", "arrived"):
        gaps = [max(x[event] for x in g) - st.mean(x[event] for x in g) for g in groups.values()]
        print(f"  a group's last {event} after its mean: median {st.median(gaps):.2f} us, most {max(gaps):.2f}")


rng = random.Random(1)
for sd in (0.2, 0.28, 0.35):  # the starts' spread; the recorded first rows' spread is about 0.28 us
    trials = [[rng.gauss(0, sd) for _ in range(8)] for _ in range(4000)]
    fixed = st.mean(group_end(s, False, rng=rng) for s in trials)
    shared = st.mean(group_end(s, True, rng=rng) for s in trials)
    print(f"starts spread {sd} us: a group of 8 ends {fixed:.2f} us after its mean start with equal shares, "
          f"{shared:.2f} with the tiles shared ({fixed - shared:.2f} sooner)")
