#!/usr/bin/env bash
# Fifty-sixth session, call 1: on an H200, every prepared call (docs/diagnostics/PREPARED: the
# headline command with FP8_RAW_PLACES, about 560 s); on any other card, the three GPU test files
# the fifty-fifth session's run of tests/gpu did not reach before its limit (work any Hopper card
# answers, none of it judging a bar). Run from the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session56-20261205/call1.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv,noheader | tee "$OUT/card.txt"
if grep -q H200 "$OUT/card.txt"; then
  bash scripts/device/run_prepared.sh 560
else
  n=1; source scripts/device/call_env.sh
  timeout -s INT 540 python3 -m pytest -q -p no:cacheprovider --durations=10 \
    tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_tensor_map.py tests/gpu/test_h200_eval.py \
    2>&1 | tee "$OUT/call1-gpu_tests.log" | tail -40
fi
