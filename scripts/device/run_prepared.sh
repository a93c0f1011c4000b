#!/usr/bin/env bash
# Runs the device calls listed in docs/diagnostics/PREPARED (or the file $PREPARED names), in order,
# in one device call (one machine start instead of one a call), each under what is left of the
# budget, and goes on past one that fails or runs out of time. Each call writes its
# own $OUT files as when run alone; $OUT/prepared.log says which ran, how long, and their exit
# status. Usage, from the repository root on the device (carrying .whl):
#   bash scripts/device/run_prepared.sh [SECONDS]    # SECONDS: this run's budget, default 570
set -u
budget=${1:-570}
t0=$(date +%s)
grep -v '^#' "${PREPARED:-docs/diagnostics/PREPARED}" | sed '/^\s*$/d' | while read -r call; do
  left=$(( budget - ($(date +%s) - t0) ))
  if [ "$left" -lt 60 ]; then
    echo "$call: not run ($left s left)" | tee -a "$OUT/prepared.log"
    continue
  fi
  start=$(date +%s)
  # stdin from /dev/null: the list itself is the loop's stdin, which a reading call would swallow
  timeout "$left" bash "$call" < /dev/null > "$OUT/$(basename "$call" .sh).log" 2>&1
  echo "$call: rc $? in $(( $(date +%s) - start )) s" | tee -a "$OUT/prepared.log"
done
