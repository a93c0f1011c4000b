#!/usr/bin/env bash
# Fifty-second session, call 1: the card's roofline ceilings (a 1 GiB device-to-device copy, an
# 8192^3 bf16 product on random data), for its sheet in context/hardware/: the H100 sheet holds
# the datasheet's ceilings until a call like this one measures them; on an H200 it checks the
# sheet's measured 4.3 TB/s and 769-798 TFLOP/s. Run from the repository root, carrying .whl:
#   bash docs/diagnostics/h100-session52-20261205/call1.sh
n=1; source scripts/device/call_env.sh
timeout 120 python3 scripts/device/ceilings.py --reps 20 | tee -a "$OUT/call1-machine.txt"
