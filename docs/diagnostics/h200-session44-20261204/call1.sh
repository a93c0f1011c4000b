#!/usr/bin/env bash
# Call 1: ROW_SHARE = cluster for FP8-656 (the two head blocks' CTAs of a (token, split) each
# dequantize half of every row into both CTAs' tiles): the siblings' GPU test of its two genomes
# first (a hang ends there, at its limit), then in a graph beside the FP8 genomes without it.
export PYTHONPATH=$PWD:/tmp/site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
timeout 240 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py -k "row-share" > $OUT/call1-gpu_tests.log 2>&1
rc=$?; echo "gpu tests rc $rc"; tail -15 $OUT/call1-gpu_tests.log | cut -c1-400
if [ $rc -ne 124 ]; then
  bash scripts/device/in_graph_call.sh 1 docs/diagnostics/h200-session44-20261204/variants1.json 1,4,5,8,64,128
fi
