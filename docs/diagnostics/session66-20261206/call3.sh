#!/usr/bin/env bash
# Sixty-sixth session, for an H200: issue 4's same-call table (point 5) on the present text, with
# the best CUDA genomes of call 1's headline run (evolve-s63, variants_table.json: its parquet's
# genes), the two small-batch genomes and Gluon's three, beside the Triton template's best and the
# PyTorch path (scripts/device/same_call_table.sh, about 70 s); then the bars' in-graph call once
# more (call 1's call6 variants, B=1-8): a third and fourth sample of bf16 B=8. On another card it
# prints the card and stops. From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session66-20261206/call3.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv,noheader | tee "$OUT/call3-card.txt"
grep -q H200 "$OUT/call3-card.txt" || exit 0
bash scripts/device/same_call_table.sh 3 docs/diagnostics/session66-20261206/variants_table.json
bash scripts/device/in_graph_call.sh 4 docs/diagnostics/session63-20261206/variants_bars.json 1,2,3,4,5,6,7,8
