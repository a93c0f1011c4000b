#!/usr/bin/env bash
# Runs the device calls listed in docs/diagnostics/PREPARED (or the file $PREPARED names), in order,
# in one device call (one machine start instead of one a call), each under what is left of the
# budget, and goes on past one that fails or runs out of time. Each call writes its own files as
# when run alone, but into a staging folder that is packed at the end into $OUT/prepared.tar.gz:
# the device tool brings back at most 8 files from $OUT, and four calls write about 15 (the
# forty-eighth session lost its fourth call's files that way). $OUT/prepared.log says which ran,
# how long, and their exit status. Usage, from the repository root on the device (carrying .whl):
#   bash scripts/device/run_prepared.sh [SECONDS]    # SECONDS: this run's budget, default 570
# and here: tar xzf <files_at>/prepared.tar.gz -C <folder>
set -u
budget=${1:-570}
t0=$(date +%s)
final_out=$OUT
staging=$(mktemp -d)
running=
pack() {
  tar czf "$final_out/prepared.tar.gz" -C "$staging" . && cp "$staging/prepared.log" "$final_out/" 2>/dev/null
  rm -rf "$staging"
}
# When the device call's limit stops this script (SIGTERM to its process group, which `timeout`
# leaves: it runs each call in a group of its own), the running call is stopped through its
# `timeout`, and what ran so far is packed and still comes back.
trap '[ -n "$running" ] && kill -TERM "$running" 2>/dev/null && wait "$running"; pack; exit 143' TERM
export OUT=$staging
mapfile -t calls < <(grep -v '^#' "${PREPARED:-docs/diagnostics/PREPARED}" | sed '/^\s*$/d')
for call in "${calls[@]}"; do
  left=$(( budget - ($(date +%s) - t0) ))
  if [ "$left" -lt 60 ]; then
    echo "$call: not run ($left s left)" | tee -a "$OUT/prepared.log"
    continue
  fi
  start=$(date +%s)
  # in the background, so that the trap above runs at once; stdin from /dev/null, so that a call
  # that reads its input (pip, a tool asking a question) gets nothing rather than waiting
  # CALL_SECONDS: the time this call has, for a call that divides it among its steps
  CALL_SECONDS=$left timeout "$left" bash "$call" < /dev/null > "$OUT/$(basename "$call" .sh).log" 2>&1 &
  running=$!
  wait "$running"
  rc=$?
  running=
  echo "$call: rc $rc in $(( $(date +%s) - start )) s" | tee -a "$OUT/prepared.log"
done
pack
