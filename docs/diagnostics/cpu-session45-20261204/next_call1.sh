#!/usr/bin/env bash
# Prepared for the next session with a device (none was lent in the forty-fifth): the overlap
# pipeline with its wgmma no longer serialized (C7515) checked on the GPU, then timed beside the
# same genomes serialized as before (the wait before the loop edited out) and beside the serial
# pipeline and the small-batch genomes. Run from the repository root, carrying .whl:
#   bash docs/diagnostics/cpu-session45-20261204/next_call1.sh
n=1; source scripts/device/call_env.sh  # the wheels on the path, the clocks noted ($OUT/call1-machine.txt)
timeout 240 python3 -m pytest -q tests/gpu/test_gpu_cuda_template.py -k "overlap or seesaw-bf16" \
  > "$OUT/next1-gpu_tests.log" 2>&1
tail -3 "$OUT/next1-gpu_tests.log"
bash scripts/device/in_graph_call.sh 1 docs/diagnostics/cpu-session45-20261204/next_variants1.json 1,8,64,128
