#!/usr/bin/env bash
# Call 3: the bars on main as it stands (the template unchanged since the forty-second session's
# machine code): the bf16 and FP8-656 small-batch genomes in a graph, each twice.
bash scripts/device/in_graph_call.sh 3 docs/diagnostics/h200-session44-20261204/variants3.json 1,2,3,4,5,6,7,8,64,128
