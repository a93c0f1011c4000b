#!/usr/bin/env bash
# Sixty-first session, call 1: the sixtieth session's prepared call 6 (each kernel's own time in
# the decode layer's graph, siblings' merge against the separate merge), then call 4's
# layer-against-alone table on this card. Run from the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session61-20261205/call1.sh
n=1; source scripts/device/call_env.sh
timeout 200 python3 scripts/device/layer_trace.py docs/diagnostics/h100-session60-20261205/variants_trace.json \
  --batches 1,8 > "$OUT/call1-layer_trace.log" 2>&1
echo "trace rc $?" >> "$OUT/call1-machine.txt"
timeout 300 python3 scripts/device/layer_vs_alone.py docs/diagnostics/h100-session60-20261205/variants_layer5.json \
  --batches 1,8 --repeats 2 > "$OUT/call1-layer_vs_alone.log" 2>&1
echo "layer_vs_alone rc $?" >> "$OUT/call1-machine.txt"
cat "$OUT/call1-machine.txt"; cut -c1-1500 "$OUT/call1-layer_trace.log" | tail -40
