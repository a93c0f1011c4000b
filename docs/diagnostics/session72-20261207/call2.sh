#!/usr/bin/env bash
# Seventy-second session, call 2, any card; replaces the seventieth session's call3.sh and this
# session's call1.sh in docs/diagnostics/PREPARED, in the order that matters most for a short call.
# On an H200: the bars' in-graph call (the sixty-third session's bars variants, B=1-8, about 50 s),
# then issue 4's same-call table on the present text (about 70 s). On any card: call1.sh (the
# engine's GPU path after the worker's problem maker changed, at most 200 s). On an H200, the CUDA
# template's GPU tests with what is left (stopped with SIGINT, so pytest prints what passed).
# From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session72-20261207/call2.sh [SECONDS]
# SECONDS: the call's time; default run_prepared.sh's CALL_SECONDS, else 500.
budget=${1:-${CALL_SECONDS:-500}}
t0=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$OUT/call2-card.txt"
h200=$(grep -c H200 "$OUT/call2-card.txt")
if [ "$h200" -gt 0 ]; then
  bash scripts/device/in_graph_call.sh 4 docs/diagnostics/session63-20261206/variants_bars.json 1,2,3,4,5,6,7,8
  bash scripts/device/same_call_table.sh 3 docs/diagnostics/session66-20261206/variants_table.json
fi
left=$(( budget - ($(date +%s) - t0) - 10 ))
[ "$left" -gt 200 ] && left=200
[ "$left" -gt 90 ] && bash docs/diagnostics/session72-20261207/call1.sh "$left"
if [ "$h200" -gt 0 ]; then
  bash scripts/device/template_gpu_tests.sh 5 $(( budget - ($(date +%s) - t0) - 10 ))
fi
cat "$OUT/call3-machine.txt" "$OUT/call4-machine.txt" "$OUT/call5-machine.txt" 2>/dev/null
