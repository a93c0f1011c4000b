#!/usr/bin/env bash
# Call 8 (the review's): the device's e4m3 test on both halves of a word of four, then the same
# test with the high half's PRMT selector made the low half's (it must fail), then one small
# in-graph call through scripts/device/in_graph_call.sh (its set-up now in call_env.sh).
export PYTHONPATH=$PWD:/tmp/site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
timeout 200 python3 -m pytest -q tests/gpu/test_gpu_fp8_dequant.py 2>&1 | tail -2
sed -i 's/prmt.b32 %1, %2, 0, 0xb3a2;/prmt.b32 %1, %2, 0, 0x9180;/' templates/sparse_mla.cu.j2
timeout 200 python3 -m pytest -q tests/gpu/test_gpu_fp8_dequant.py 2>&1 | tail -2  # must fail
git checkout templates/sparse_mla.cu.j2
bash scripts/device/in_graph_call.sh 8 docs/diagnostics/h200-session44-20261204/variants3.json 8
