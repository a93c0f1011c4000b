#!/usr/bin/env bash
# Call 3: what the 64-row genome loses: its ring of four tiles (gathers into a tile's own buffer
# once its products are done) with today's two 32-row chains a pair (an edit of the rendered
# source), beside the 64-row chains and the small-batch genome.
bash scripts/device/in_graph_call.sh 3 docs/diagnostics/h200-session43-20261204/variants3.json 1,4,7,8,64
