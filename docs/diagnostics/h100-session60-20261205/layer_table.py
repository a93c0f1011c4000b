"""Calls 4 and 5's figures (layer_vs_alone.py) as one table: for each variant, workload and
context, the range over the repeats of both calls (us). Run from this folder."""
import json
from collections import defaultdict

COLUMNS = ("alone", "in16", "layer", "after_query", "before_tail", "empty_before", "empty_after", "copy_before", "alt16")
NAMES = {"sib (1abacf6d: the run's best, siblings, i8)": "sib", "sep (1abacf6d with the separate merge, bf16 partials)": "sep",
         "cec7b108 (the run's best layer step at B=1)": "cec7b108"}
cells = defaultdict(lambda: defaultdict(list))
for f in ("call4-layer_vs_alone.json", "call5-layer_vs_alone.json"):
    for r in json.load(open(f)):
        assert r["check"] == "ok", (f, r)
        base, _, coop = r["variant"].partition(" --")
        name = NAMES.get(base, base) + (" --" + coop if coop else "")
        for c in COLUMNS:
            if c in r:
                cells[(name, r["workload"])][c].append(r[c])
print("| variant | workload | " + " | ".join(COLUMNS) + " |")
print("|---" * (len(COLUMNS) + 2) + "|")
for (name, workload), cols in sorted(cells.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    spans = []
    for c in COLUMNS:
        v = sorted(cols.get(c, []))
        spans.append("" if not v else f"{v[0]:.1f}" if f"{v[0]:.1f}" == f"{v[-1]:.1f}" else f"{v[0]:.1f}-{v[-1]:.1f}")
    print(f"| {name} | {workload} | " + " | ".join(spans) + " |")
