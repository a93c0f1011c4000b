#!/usr/bin/env bash
# Call 2: SCORE_ROWS = 64 (a pair scored by one chain of m64n64k16) against the bf16 small-batch
# genome, in a graph; then the siblings' GPU test of the two new 64-row genomes.
bash scripts/device/in_graph_call.sh 2 docs/diagnostics/h200-session43-20261204/variants2.json 1,2,4,5,6,7,8,16,64
export PYTHONPATH=$PWD:/tmp/site
timeout 200 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py -k "pair-scores" > $OUT/call2-gpu_tests.log 2>&1
echo "gpu tests rc $?"; tail -5 $OUT/call2-gpu_tests.log
