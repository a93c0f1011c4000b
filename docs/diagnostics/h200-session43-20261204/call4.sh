#!/usr/bin/env bash
# Call 4: the bf16 small-batch genome's first pair scored adaptively (tile 0's softmax first unless
# tile 1's rows are in too), or always tile 0's softmax first (edits of the rendered source).
bash scripts/device/in_graph_call.sh 4 docs/diagnostics/h200-session43-20261204/variants4.json 1,4,6,7,8,16,64
