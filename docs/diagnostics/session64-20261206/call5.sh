#!/usr/bin/env bash
# Sixty-fourth session, call 5: the search's pace with the next batch asked ahead and built while
# this one is timed (engine/loop.py, RunnerPool.prebuild), on top of call 3's build lock and build
# order: the same command and seed (64) as calls 2 and 3, stopped at 240 s (genomes recorded by a
# time since the run's first row against theirs). On an H200 the prepared bars call (session 63's
# call6.sh) runs first, and the pace run after it. From the repository root, carrying .whl:
#   bash docs/diagnostics/session64-20261206/call5.sh
n=5; source scripts/device/call_env.sh
if grep -q H200 "$OUT/call5-machine.txt"; then
  bash docs/diagnostics/session63-20261206/call6.sh > "$OUT/call6.log" 2>&1
  tail -40 "$OUT/call6.log"
fi
bash scripts/device/pace_call.sh 5 64 240 evolve-s64-ahead
