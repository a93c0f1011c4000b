#!/usr/bin/env bash
# Call 4: ROW_SHARE = cluster in the lockstep schedule, whose producer warpgroup dequantizes
# (FlashMLA's split of the work): the siblings' GPU test of its genome first (a hang ends there),
# then in a graph beside the FP8 lockstep without it and the scorer's FP8 genomes.
export PYTHONPATH=$PWD:/tmp/site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
timeout 200 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py -k "lockstep-fp8-row-share" > $OUT/call4-gpu_tests.log 2>&1
rc=$?; echo "gpu tests rc $rc"; tail -15 $OUT/call4-gpu_tests.log | cut -c1-400
if [ $rc -ne 124 ]; then
  bash scripts/device/in_graph_call.sh 4 docs/diagnostics/h200-session44-20261204/variants4.json 1,4,5,8,64,128
fi
