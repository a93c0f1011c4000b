#!/usr/bin/env bash
# Seventieth session, call 2, for an H200 only (every GPU test of the CUDA template has now passed
# on the present main on H100s: 51 of test_gpu_cuda_template.py's 53 in the sixty-ninth session's
# call 5, the other 2 and test_gpu_pdl_chain.py's and test_gpu_fp8_dequant.py's 13 in this
# session's call 1). On an H200: the sixty-sixth session's call3.sh (issue 4's same-call table on
# the present text, then the bars' in-graph call, B=1-8), then as many of the CUDA template's GPU
# tests as the rest of the call's time allows, on the card of the bars, stopped with SIGINT so
# that pytest still prints what passed. On another card it prints the card and stops at once.
# From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session70-20261206/call2.sh [SECONDS]
# SECONDS: the call's time; default run_prepared.sh's CALL_SECONDS, else 470.
budget=${1:-${CALL_SECONDS:-470}}
t0=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$OUT/call2-card.txt"
grep -q H200 "$OUT/call2-card.txt" || exit 0
n=2
source scripts/device/call_env.sh
bash docs/diagnostics/session66-20261206/call3.sh
bash scripts/device/template_gpu_tests.sh 2 $(( budget - ($(date +%s) - t0) - 10 ))
cat "$OUT/call2-machine.txt"
