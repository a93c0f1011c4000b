#!/usr/bin/env bash
# Call 2: why ROW_SHARE = cluster is slower: the CTAs and clusters of two the device holds and the
# split counts that follows (capacity.py); in a graph, the shared rows without the stores to the
# peer, and the unshared genome dequantizing only half of each row (knockouts, wrong by design).
export PYTHONPATH=$PWD:/tmp/site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
timeout 120 python3 docs/diagnostics/h200-session44-20261204/capacity.py 2>&1 | tail -4 | tee $OUT/call2-capacity.log
bash scripts/device/in_graph_call.sh 2 docs/diagnostics/h200-session44-20261204/variants2.json 1,4,8,64,128
