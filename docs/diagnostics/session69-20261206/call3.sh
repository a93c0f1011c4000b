#!/usr/bin/env bash
# Sixty-ninth session, call 3, any card: does the CUDA fire drill change the search? The same
# random search (seed 69, its draws never depend on results) with and without
# `--inject-faults 0.4`, budget 16 each, on the headline CUDA template (compile-ahead workers, the
# decode layer on by default); then the two runs' genome rows side by side: ids in order,
# statuses, best genome per workload, and the drill's injected rows with their expected status.
# From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session69-20261206/call3.sh
n=3
source scripts/device/call_env.sh
for run in clean drill; do
  extra=$([ $run = drill ] && echo "--inject-faults 0.4")
  t0=$(date +%s)
  python3 -m engine evolve templates/sparse_mla.cu.j2 --strategy random --budget 16 --seed 69 --timeout-s 60 \
    $extra --out results/$run-s69 > "$OUT/call3-$run.log" 2>&1
  echo "$run rc $? $(( $(date +%s) - t0 )) s" >> "$OUT/call3-machine.txt"
done
python3 docs/diagnostics/session69-20261206/compare_drill.py results/clean-s69 results/drill-s69 \
  >> "$OUT/call3-machine.txt" 2>&1
cat "$OUT/call3-machine.txt"
