"""The genome rows of a clean run and of the same run with faults injected, side by side.

Usage: python3 compare_drill.py CLEAN_RUN DRILL_RUN
"""

import json
import sys

from engine.faults import expected_statuses
from engine.store.reader import read_records


def genomes(rows):
    return [r for r in rows if r["kind"] == "genome"]


def best_per_workload(rows):
    """(cache format, workload) -> (genome, median, IQR): each format is a problem of its own."""
    best = {}
    for r in genomes(rows):
        if r["status"] != "ok":
            continue
        kv = json.loads(r["params_json"]).get("KV_FORMAT", "bf16")
        for w in r["workloads"]:
            key = (kv, w["name"])
            if key not in best or w["median_us"] < best[key][1]:
                best[key] = (r["genome_id"], w["median_us"], w["iqr_us"])
    return best


clean_rows, drill_rows = read_records(sys.argv[1]), read_records(sys.argv[2])
clean, drill = genomes(clean_rows), genomes(drill_rows)
print("genome rows: clean", len(clean), "drill", len(drill))
print("same ids in the same order:", [r["genome_id"] for r in clean] == [r["genome_id"] for r in drill])
print("same statuses:", [r["status"] for r in clean] == [r["status"] for r in drill])
for c, d in zip(clean, drill):
    if c["genome_id"] != d["genome_id"] or c["status"] != d["status"]:
        print("  differs:", c["genome_id"], c["status"], "|", d["genome_id"], d["status"])
injected = [r for r in drill_rows if r["kind"] == "injected"]
print("injected:", len(injected), "with the expected status:",
      sum(r["status"] in expected_statuses(r["operator"]) for r in injected))
for r in injected:
    print(f"  {r['operator']:<60} {r['status']}")
bc, bd = best_per_workload(clean_rows), best_per_workload(drill_rows)
print("best genome per workload (clean | drill), median us (IQR):")
for key in sorted(bc, key=lambda k: (k[0], int(k[1].split("_")[0][1:]), k[1])):
    c, d = bc[key], bd.get(key, ("-", float("nan"), float("nan")))
    mark = "same" if c[0] == d[0] else "DIFFERENT"
    print(f"  {key[0]:<8} {key[1]:<14} {c[0]} {c[1]:8.1f} ({c[2]:.1f}) | {d[0]} {d[1]:8.1f} ({d[2]:.1f})  {mark}")
