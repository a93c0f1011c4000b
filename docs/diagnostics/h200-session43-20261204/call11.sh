#!/usr/bin/env bash
# Call 11: the scorer issuing a pair's scores only once the value warpgroups have issued the last
# pair's second products (named barrier 7: their bar.arrive, its bar.sync), so that those products
# go ahead of the next scores on the tensor cores (an edit of the rendered source).
bash scripts/device/in_graph_call.sh 11 docs/diagnostics/h200-session43-20261204/variants11.json 1,2,4,6,7,8,16,64
