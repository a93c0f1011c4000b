#!/usr/bin/env bash
# Prepared for the next session with a device: whether the H200's FP8 products are precise enough
# to score FP8-656 rows raw (the lead in this folder's README): the hardware's block sums against
# exact ones and the CPU's truncation models, and the harness's verdict on out and lse. Run from
# the repository root, carrying .whl:
#   bash docs/diagnostics/cpu-session45-20261204/next_call2.sh
n=2; source scripts/device/call_env.sh  # the wheels on the path, the clocks noted ($OUT/call2-machine.txt)
timeout 300 python3 scripts/device/fp8_wgmma_precision.py --batch 2 --context 4096 --seeds 2 \
  > "$OUT/call2-fp8_wgmma_precision.log" 2>&1
echo "rc $?" >> "$OUT/call2-machine.txt"
cat "$OUT/call2-machine.txt" "$OUT/call2-fp8_wgmma_precision.log"
