#!/usr/bin/env bash
# Sixty-fourth session, call 2. On an H200: the prepared calls (as call 1). On any other card: the
# headline command on the template with an entry a split count (e8234ba37d714862), seed 64, as a
# run of the whole CUDA space through the new entries (every genome verified on every workload;
# an H100's figures judge no bar). An H100 takes about 3.6 s a genome: the guard stops it near
# 150, and `bash scripts/device/headline_call.sh 3 64 --resume` (carrying results/evolve-s64
# unpacked) goes on. From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session64-20261206/call2.sh
n=2; source scripts/device/call_env.sh
if grep -q H200 "$OUT/call2-machine.txt"; then
  bash scripts/device/run_prepared.sh 570
  exit
fi
bash scripts/device/headline_call.sh 2 64
