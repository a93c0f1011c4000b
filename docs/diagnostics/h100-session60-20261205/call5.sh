#!/usr/bin/env bash
# Sixtieth session, call 5: call 4's siblings' loss inside the layer (not the cooperative launch)
# pinned down: the same figures with an empty kernel or a 16 MB copy beside the call, 16 calls
# each followed by an empty kernel, and each merge with and without PDL. Run from the repository
# root on the device, carrying .whl:
#   bash docs/diagnostics/h100-session60-20261205/call5.sh
n=5; source scripts/device/call_env.sh
timeout 500 python3 scripts/device/layer_vs_alone.py docs/diagnostics/h100-session60-20261205/variants_layer5.json \
  --batches 1,8 --repeats 2 > "$OUT/call5-layer_vs_alone.log" 2>&1
echo "rc $?" >> "$OUT/call5-machine.txt"; cat "$OUT/call5-machine.txt"; cut -c1-400 "$OUT/call5-layer_vs_alone.log" | tail -30
