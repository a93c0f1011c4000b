#!/usr/bin/env bash
# One device call that runs the search the way a user checks a model-level result: `python -m
# engine evolve templates/sparse_mla.cu.j2 --e2e --objectives score,e2e` (each cache format's
# default and every genome also inside the decode layer; a Pareto front per format), then `engine
# show` and `engine audit --top 1` (each format's best re-run in a fresh worker, on the card that
# timed it, inside the layer too), and the run folder, less its cubins and kernels, as one archive.
# Usage, from the repository root on the device (the `device` tool's command, carrying .whl):
#   bash scripts/device/e2e_audit_call.sh N SEED BUDGET
# writes $OUT/callN-machine.txt, $OUT/callN-evolve.log, -show.log, -audit.log and
# $OUT/e2e-sSEED.tgz (the run folder results/e2e-sSEED).
set -u
n=$1 seed=$2 budget=$3
source "$(dirname "$0")/call_env.sh"  # the wheels on the path, the clocks noted
run=e2e-s$seed
t0=$(date +%s)
timeout -s TERM 420 python3 -m engine evolve templates/sparse_mla.cu.j2 --budget "$budget" --seed "$seed" \
  --e2e --objectives score,e2e --timeout-s 120 --out "results/$run" > "$OUT/call$n-evolve.log" 2>&1
echo "evolve rc $? $(( $(date +%s) - t0 )) s" >> "$OUT/call$n-machine.txt"
python3 -m engine show "results/$run" > "$OUT/call$n-show.log" 2>&1
t1=$(date +%s)
timeout -s TERM 150 python3 -m engine audit "results/$run" --top 1 --timeout-s 120 > "$OUT/call$n-audit.log" 2>&1
echo "audit rc $? $(( $(date +%s) - t1 )) s" >> "$OUT/call$n-machine.txt"
tar --exclude=cubins --exclude='kernels*' --exclude=.lock -czf "$OUT/$run.tgz" -C results "$run"
cat "$OUT/call$n-machine.txt"; tail -3 "$OUT/call$n-evolve.log"; head -40 "$OUT/call$n-show.log"; cat "$OUT/call$n-audit.log"
