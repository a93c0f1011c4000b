#!/usr/bin/env bash
# Fifty-sixth session, calls 2 on: every prepared call (docs/diagnostics/PREPARED: the headline
# command with FP8_RAW_PLACES, about 560 s) on an H200; on any other card the card check alone.
# Run from the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session56-20261205/call2.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv,noheader | tee "$OUT/card.txt"
if grep -q H200 "$OUT/card.txt"; then
  bash scripts/device/run_prepared.sh 560
fi
