#!/usr/bin/env bash
# Seventy-fifth session, call 1, for an H200 only; replaces the seventy-fourth session's call3.sh in
# docs/diagnostics/PREPARED. Every GPU test passed on the present code on an H100 this session
# (this folder's README), so a card other than an H200 has nothing left to run here and the call
# stops at its card check. On an H200: the bars' in-graph call (the sixty-third session's bars
# variants, B=1-8, about 50 s), then issue 4's same-call table on the present text (about 70 s).
# From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session75-20261207/call1.sh
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$OUT/call1-card.txt"
grep -q H200 "$OUT/call1-card.txt" || { echo "not an H200: nothing run"; exit 0; }
bash scripts/device/in_graph_call.sh 2 docs/diagnostics/session63-20261206/variants_bars.json 1,2,3,4,5,6,7,8
bash scripts/device/same_call_table.sh 3 docs/diagnostics/session66-20261206/variants_table.json
