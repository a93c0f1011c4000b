#!/usr/bin/env bash
# Sixty-sixth session, for an H200 (the card the bars are set on): the scorer schedule's small-batch
# genes crossed on the bars' bf16 and FP8-656 genomes (variants_sweep.json, make_sweep.py), 16
# calls in a graph at B=6-8, each base three times. On another card it prints the card and stops.
# From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session66-20261206/call2.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv,noheader | tee "$OUT/call2-card.txt"
grep -q H200 "$OUT/call2-card.txt" || exit 0
bash scripts/device/in_graph_call.sh 2 docs/diagnostics/session66-20261206/variants_sweep.json 6,7,8
