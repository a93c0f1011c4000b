#!/usr/bin/env bash
# Sixty-fourth session, call 3: the search's pace with one nvcc build a key across processes and a
# batch sent to the GPU worker in the order its builds end (evaluators/cuda_compile.py,
# evaluators/pool.py), against call 2's run on the same seed (64) and template: genomes recorded
# in the first 300 s. On an H200 the prepared bars call (session 63's call6.sh) runs first.
# From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session64-20261206/call3.sh
n=3; source scripts/device/call_env.sh
if grep -q H200 "$OUT/call3-machine.txt"; then
  bash docs/diagnostics/session63-20261206/call6.sh > "$OUT/call6.log" 2>&1
  tail -30 "$OUT/call6.log"
fi
bash scripts/device/pace_call.sh 3 64 300 evolve-s64-pace
