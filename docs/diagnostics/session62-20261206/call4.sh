#!/usr/bin/env bash
# Sixty-second session, prepared: whether the siblings' merge loses its time inside the decode layer
# to its code leaving the SMs' instruction caches. Each variant alone, then followed by a kernel of
# 512 KB of straight-line arithmetic (no memory traffic), then by the layer's output projections.
# Variants: sib, sep, sib bf16 (as the sixty-first session's call 2) and sib with one split count's
# merge in its switch (8: B=8's on 132 SMs, 83 KB of code; 32: B=1's, 99 KB; against 349 KB): the
# remedy's effect, if code is the cause (at the other batch they take the general merge).
# Any Hopper card answers it; about 3 minutes. Run from the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session62-20261206/call4.sh
n=4; source scripts/device/call_env.sh
timeout 300 python3 scripts/device/icache_probe.py docs/diagnostics/session62-20261206/variants_icache.json \
  --batches 1,8 --repeats 2 > "$OUT/call4-icache_probe.log" 2>&1
echo "rc $?" >> "$OUT/call4-machine.txt"; cat "$OUT/call4-machine.txt"; tail -8 "$OUT/call4-icache_probe.log"
