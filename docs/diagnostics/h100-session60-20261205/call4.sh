#!/usr/bin/env bash
# Sixtieth session, call 4: where the siblings' merge loses 3-7 us inside the decode layer at B=1
# (call 1's run: every COMBINE = siblings genome slower inside than alone, every separate one not).
# Run from the repository root on the device, carrying .whl:
#   bash docs/diagnostics/h100-session60-20261205/call4.sh
n=4; source scripts/device/call_env.sh
timeout 500 python3 scripts/device/layer_vs_alone.py docs/diagnostics/h100-session60-20261205/variants_layer.json \
  --batches 1,8 --repeats 2 > "$OUT/call4-layer_vs_alone.log" 2>&1
echo "rc $?" >> "$OUT/call4-machine.txt"; cat "$OUT/call4-machine.txt"; tail -30 "$OUT/call4-layer_vs_alone.log"
