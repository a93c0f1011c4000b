#!/usr/bin/env bash
# The CUDA template's GPU tests with the seconds a device call has left, stopped with SIGINT so
# that pytest still prints what passed (a call's own limit would stop the whole call, and pytest
# with it, before its summary). Writes $OUT/callN-gpu_tests.log and appends the tests' exit status
# to $OUT/callN-machine.txt. Usage, from the repository root on the device (the wheels on the path):
#   bash scripts/device/template_gpu_tests.sh N SECONDS [TEST ...]
# TEST: pytest ids; default the template's three files. Fewer than 60 seconds: nothing is run.
set -u
n=$1 left=$2
shift 2
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(tests/gpu/test_gpu_cuda_template.py tests/gpu/test_gpu_pdl_chain.py tests/gpu/test_gpu_fp8_dequant.py)
[ "$left" -gt 60 ] || exit 0
t0=$(date +%s)
timeout -s INT "$left" python3 -m pytest -q -p no:cacheprovider --durations=10 "${tests[@]}" > "$OUT/call$n-gpu_tests.log" 2>&1
echo "gpu tests rc $? in $(( $(date +%s) - t0 )) s" >> "$OUT/call$n-machine.txt"
tail -15 "$OUT/call$n-gpu_tests.log"
