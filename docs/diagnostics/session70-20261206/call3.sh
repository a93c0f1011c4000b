#!/usr/bin/env bash
# Seventieth session, call 3, for an H200 only: call2.sh's steps with the bars first, for a call
# shorter than call2.sh needs (the session's device time ran low on asks that got H100s or no
# machine). On an H200: the bars' in-graph call (the sixty-third session's bars variants, B=1-8,
# about 50 s: a third and fourth sample of bf16 B=8 on the present text), then issue 4's
# same-call table (the sixty-sixth session's variants_table.json), then the CUDA template's GPU
# tests with what is left, stopped with SIGINT so that pytest still prints what passed. On
# another card it prints the card and stops at once. From the repository root on the device,
# carrying .whl:
#   bash docs/diagnostics/session70-20261206/call3.sh [SECONDS]
# SECONDS: the call's time; default run_prepared.sh's CALL_SECONDS, else 300.
budget=${1:-${CALL_SECONDS:-300}}
t0=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$OUT/call3-card.txt"
grep -q H200 "$OUT/call3-card.txt" || exit 0
bash scripts/device/in_graph_call.sh 4 docs/diagnostics/session63-20261206/variants_bars.json 1,2,3,4,5,6,7,8
bash scripts/device/same_call_table.sh 3 docs/diagnostics/session66-20261206/variants_table.json
bash scripts/device/template_gpu_tests.sh 3 $(( budget - ($(date +%s) - t0) - 10 ))
cat "$OUT/call3-machine.txt" "$OUT/call4-machine.txt" 2>/dev/null
