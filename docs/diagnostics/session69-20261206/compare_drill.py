"""The genome rows of a clean run and of the same run with faults injected, side by side: ids and
statuses in order, the drill's injected rows, and the best genome per workload of each problem
(engine.show's grouping by the template's problem genes and its best_per_workload).

Usage: python3 compare_drill.py CLEAN_RUN DRILL_RUN
"""

import sys
from pathlib import Path

from engine.faults import expected_statuses
from engine.run_folder import read_config, template_of_run
from engine.show import best_per_workload, problem_groups
from engine.store.reader import read_records


def best_by_problem(run_dir: Path, rows) -> dict:
    """(problem group, workload) -> its fastest ok genome's (id, median, IQR)."""
    genes = template_of_run(run_dir, read_config(run_dir)).problem_genes
    return {(group, name): (b["record"]["genome_id"], b["workload"]["median_us"], b["workload"]["iqr_us"])
            for group, members in problem_groups(rows, genes).items()
            for name, b in best_per_workload(members).items()}


clean_dir, drill_dir = Path(sys.argv[1]), Path(sys.argv[2])
clean_rows, drill_rows = read_records(clean_dir), read_records(drill_dir)
clean, drill = ([r for r in rows if r["kind"] == "genome"] for rows in (clean_rows, drill_rows))
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
bc, bd = best_by_problem(clean_dir, clean_rows), best_by_problem(drill_dir, drill_rows)
print("best genome per workload (clean | drill), median us (IQR):")
for key in sorted(bc, key=lambda k: (k[0], int(k[1].split("_")[0][1:]), k[1])):
    c, d = bc[key], bd.get(key, ("-", float("nan"), float("nan")))
    mark = "same" if c[0] == d[0] else "DIFFERENT"
    print(f"  {key[0]:<18} {key[1]:<14} {c[0]} {c[1]:8.1f} ({c[2]:.1f}) | {d[0]} {d[1]:8.1f} ({d[2]:.1f})  {mark}")
