#!/usr/bin/env bash
# Call 6: the lockstep's shared rows with the values handed to the peer by the copy engine (each
# CTA's four column blocks of a pair, 4 KB a bulk copy, after the producer's barrier): the
# siblings' GPU test of its two genomes first (a hang ends there), then in a graph.
export PYTHONPATH=$PWD:/tmp/site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
timeout 200 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py -k "lockstep-fp8-row-share" > $OUT/call6-gpu_tests.log 2>&1
rc=$?; echo "gpu tests rc $rc"; tail -15 $OUT/call6-gpu_tests.log | cut -c1-400
if [ $rc -ne 124 ]; then
  bash scripts/device/in_graph_call.sh 6 docs/diagnostics/h200-session44-20261204/variants6.json 1,2,4,5,6,8,16,64,128
fi
