#!/usr/bin/env bash
# Sixty-ninth session, call 5 (numbered so: the sixty-sixth session's call3.sh, which it runs,
# writes call3- and call4- files), any card. On an H200: that call3.sh first (issue 4's
# same-call table on the present text, then the bars' in-graph call once more). Then, on any
# card, as many of the CUDA template's GPU tests as the rest of the call's time allows
# (test_gpu_cuda_template.py last ran whole in the sixty-third session, before the sixty-fifth
# session's build targets and the sixty-eighth's launcher arguments by SPLIT_PARAMS), stopped
# with SIGINT so that pytest still prints what passed. From the repository root on the device,
# carrying .whl:
#   bash docs/diagnostics/session69-20261206/call5.sh [SECONDS]
# SECONDS: the call's time; default run_prepared.sh's CALL_SECONDS, else 470. (In the sixty-ninth
# session's call 5 it took 470 under run_prepared.sh's 290 and was stopped whole at 51 tests.)
budget=${1:-${CALL_SECONDS:-470}}
t0=$(date +%s)
n=5
source scripts/device/call_env.sh
if grep -q H200 "$OUT/call5-machine.txt"; then
  bash docs/diagnostics/session66-20261206/call3.sh
fi
left=$(( budget - ($(date +%s) - t0) - 10 ))
if [ "$left" -gt 60 ]; then
  timeout -s INT "$left" python3 -m pytest -q -p no:cacheprovider --durations=10 \
    tests/gpu/test_gpu_cuda_template.py tests/gpu/test_gpu_pdl_chain.py tests/gpu/test_gpu_fp8_dequant.py \
    > "$OUT/call5-gpu_tests.log" 2>&1
  echo "gpu tests rc $? in $(( $(date +%s) - t0 )) s of the call" >> "$OUT/call5-machine.txt"
fi
tail -15 "$OUT/call5-gpu_tests.log" 2>/dev/null
cat "$OUT/call5-machine.txt"
