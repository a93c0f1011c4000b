# The timeline of call 2 as phases: per call (1-14 of 16) the median over the CTAs of each event, from the
# call's first CTA start, then the median over calls and replays. Usage: python3 call2_phases.py call2-timeline.json
import json, statistics as st, sys
r = json.load(open(sys.argv[1]))
ev = ["start", "released", "q_in", "first_tile_in", "first_p", "values_done", "arrived", "all_arrived", "stored"]
for name, per_b in r.items():
    for b, reps in per_b.items():
        rows = {e: [] for e in ev}; rows["next"] = []
        for rep in reps:
            m = rep["main"]
            for c in range(1, len(m) - 1):
                s0 = m[c]["start"]["median"]
                for e in ev: rows[e].append(m[c][e]["median"] - s0)
                rows["next"].append(m[c + 1]["start"]["median"] - s0)
        print(f"{name:24s} {b}: " + " ".join(f"{e}={st.median(v):.2f}" for e, v in rows.items()))
