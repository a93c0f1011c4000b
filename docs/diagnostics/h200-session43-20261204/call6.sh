#!/usr/bin/env bash
# Call 6: how much of the bf16 small-batch genome's time is its rows' memory traffic: knockouts
# (edits of the rendered source, wrong by design) whose copies zero-fill instead of reading, for
# the second head block's CTAs (each row then read once per token) or for every CTA.
bash scripts/device/in_graph_call.sh 6 docs/diagnostics/h200-session43-20261204/variants6.json 1,4,7,8,16,64
python3 scripts/in_graph_table.py $OUT/call6-in_graph.json --knockout "pair i8, head block 1's rows zero-filled (knockout)" --knockout "pair i8, every row zero-filled (knockout)"
