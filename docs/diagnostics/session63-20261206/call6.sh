#!/usr/bin/env bash
# Sixty-third session, prepared for an H200 (the card the bars are set on): the small-batch bars on
# the template with an entry a split count (e8234ba37d714862). The fifty-sixth session's call 8
# (bars on e1e588ce2699e644) with the same three genomes, and the FP8-656 B=64-128 winner of its
# headline run (4729beae8b02cbf3, siblings: at B=128 its entry without a count, whose code shrank
# from 251 to 55 KB), each twice, 16 calls in a graph (and one call a graph), B=1-8, 64 and 128.
# On an H100 it prints the card and stops (H100 figures judge no bar; call 2 has them).
# About 1 minute. From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session63-20261206/call6.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv,noheader | tee "$OUT/call6-card.txt"
grep -q H200 "$OUT/call6-card.txt" || exit 0
bash scripts/device/in_graph_call.sh 6 docs/diagnostics/session63-20261206/variants_bars.json 1,2,3,4,5,6,7,8,64,128
