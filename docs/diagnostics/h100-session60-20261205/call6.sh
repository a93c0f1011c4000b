#!/usr/bin/env bash
# Sixtieth session, call 6: each kernel's own time in the decode layer's graph (CUPTI, through
# torch.profiler), the siblings' merge against the separate merge, B=1 and B=8 at ctx 32K. Run
# from the repository root on the device, carrying .whl:
#   bash docs/diagnostics/h100-session60-20261205/call6.sh
n=6; source scripts/device/call_env.sh
timeout 170 python3 scripts/device/layer_trace.py docs/diagnostics/h100-session60-20261205/variants_trace.json \
  --batches 1,8 > "$OUT/call6-layer_trace.log" 2>&1
echo "rc $?" >> "$OUT/call6-machine.txt"; cat "$OUT/call6-machine.txt"; cut -c1-1500 "$OUT/call6-layer_trace.log" | tail -20
