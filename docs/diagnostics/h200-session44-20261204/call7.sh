#!/usr/bin/env bash
# Call 7: as call 6, each column block handed to the peer by the copy engine as soon as every
# producer thread has stored it (under the next block's conversion), not all four after the last: the
# siblings' GPU test of its two genomes first (a hang ends there), then in a graph.
export PYTHONPATH=$PWD:/tmp/site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
timeout 200 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py -k "lockstep-fp8-row-share" > $OUT/call7-gpu_tests.log 2>&1
rc=$?; echo "gpu tests rc $rc"; tail -15 $OUT/call7-gpu_tests.log | cut -c1-400
if [ $rc -ne 124 ]; then
  bash scripts/device/in_graph_call.sh 7 docs/diagnostics/h200-session44-20261204/variants7.json 1,4,8,64,128
fi
