#!/usr/bin/env bash
# Seventy-second session, call 1, any card: the engine's GPU path after the seventy-first
# session's changes to the worker's problem maker (evaluators/problems.py make_problem, used by
# evaluators/harness.py) and the CLI's front-matter checks, which no GPU had run. The default
# genome of each template through `eval`, a short headline search, the guards' and the timer's
# GPU tests, and the H200 eval tests (the architecture check). Tests stopped with SIGINT, so
# pytest still prints what passed. From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session72-20261207/call1.sh [SECONDS]
# SECONDS: at most this long (default 230, and never more than run_prepared.sh's CALL_SECONDS), so
# that call3.sh's bars after it in docs/diagnostics/PREPARED keep the rest of the call.
budget=${1:-230}
[ "${CALL_SECONDS:-$budget}" -lt "$budget" ] && budget=$CALL_SECONDS
t0=$(date +%s)
n=1
source scripts/device/call_env.sh
git log --oneline -1 >> "$OUT/call1-machine.txt" 2>&1
{
  timeout 90 python3 -m engine eval templates/sparse_mla.cu.j2; echo "eval cuda rc $?"
  timeout 90 python3 -m engine eval templates/sparse_mla.triton.j2; echo "eval triton rc $?"
  timeout 120 python3 -m engine evolve templates/sparse_mla.cu.j2 --budget 6 --seed 72 --out /tmp/s72run; echo "evolve rc $?"
  python3 -m engine show /tmp/s72run | head -30
} > "$OUT/call1-engine.log" 2>&1
left=$(( budget - ($(date +%s) - t0) - 10 ))
if [ "$left" -gt 60 ]; then
  timeout -s INT "$left" python3 -m pytest -q -p no:cacheprovider --durations=10 \
    tests/gpu/test_h200_eval.py tests/gpu/test_gpu_guards.py tests/gpu/test_gpu_graph_timer.py \
    > "$OUT/call1-gpu_tests.log" 2>&1
  echo "gpu tests rc $? in $(( $(date +%s) - t0 )) s of the call" >> "$OUT/call1-machine.txt"
fi
grep -E "rc |ok|status" "$OUT/call1-engine.log" | head -20
tail -8 "$OUT/call1-gpu_tests.log" 2>/dev/null
cat "$OUT/call1-machine.txt"
