#!/usr/bin/env bash
# Sixty-third session: which property of the siblings' merge's code costs it inside the layer.
# Its split kernel's SASS (cuobjdump) puts each inlined merge in the middle of the body's path, so
# the code a launch runs spans the whole 349 KB section. Variants: sib, sep, sib merge8 only (the
# sixty-second session's call 4), sib with its merges __noinline__ (one 349 KB section, but the
# body's path compact and the merges called at its end), and sib merge8 only beside a 512 KB
# kernel never launched (a small split kernel in a big module). Each alone, + evictor, + tail.
# Any Hopper card; about 2-3 minutes. From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session63-20261206/call1.sh
n=1; source scripts/device/call_env.sh
timeout 300 python3 scripts/device/icache_probe.py docs/diagnostics/session63-20261206/variants_mechanism.json \
  --batches 1,8 --repeats 2 > "$OUT/call1-icache_probe.log" 2>&1
echo "rc $?" >> "$OUT/call1-machine.txt"; cat "$OUT/call1-machine.txt"; tail -22 "$OUT/call1-icache_probe.log"
