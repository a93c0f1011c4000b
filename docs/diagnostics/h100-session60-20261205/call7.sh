#!/usr/bin/env bash
# Sixtieth session, prepared (no device time was left): the e2e GPU tests after this session's
# changes, which no GPU has run yet: B=8 now timed in the layer too, and `evolve` on a GPU with the
# layer on by default (--no-e2e leaves it out). Any Hopper card answers it; about 4-6 minutes. Run
# from the repository root on the device, carrying .whl:
#   bash docs/diagnostics/h100-session60-20261205/call7.sh
n=7; source scripts/device/call_env.sh
timeout -s INT 540 python3 -m pytest -q -s -p no:cacheprovider tests/gpu/test_gpu_e2e.py \
  2>&1 | tee "$OUT/call7-gpu_e2e.log" | tail -30
