#!/usr/bin/env bash
# Seventieth session, call 1, any card. Replaces the sixty-ninth session's call5.sh, which ran all
# 53 tests of test_gpu_cuda_template.py again on any card: 51 of them passed on an H100 in that
# session. On an H200: the sixty-sixth session's call3.sh (issue 4's same-call table on the
# present text, then the bars' in-graph call), then all the CUDA template's GPU tests as time
# allows. On another card: only the tests that call 5 did not reach (its last two, an
# out-of-bounds kernel and a hung first launch, then test_gpu_pdl_chain.py and
# test_gpu_fp8_dequant.py). Tests are stopped with SIGINT, so pytest still prints what passed.
# From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session70-20261206/call1.sh [SECONDS]
# SECONDS: the call's time; default run_prepared.sh's CALL_SECONDS, else 470.
budget=${1:-${CALL_SECONDS:-470}}
t0=$(date +%s)
n=1
source scripts/device/call_env.sh
template_tests=tests/gpu/test_gpu_cuda_template.py
if grep -q H200 "$OUT/call1-machine.txt"; then
  bash docs/diagnostics/session66-20261206/call3.sh
else
  template_tests="$template_tests::test_a_cuda_kernel_that_writes_out_of_bounds_is_an_illegal_address_and_the_worker_goes_on
    $template_tests::test_a_cuda_kernel_whose_first_launch_never_ends_is_a_timeout_of_its_first_call"
fi
left=$(( budget - ($(date +%s) - t0) - 10 ))
if [ "$left" -gt 60 ]; then
  # shellcheck disable=SC2086  # the test ids are words
  timeout -s INT "$left" python3 -m pytest -q -p no:cacheprovider --durations=10 \
    $template_tests tests/gpu/test_gpu_pdl_chain.py tests/gpu/test_gpu_fp8_dequant.py \
    > "$OUT/call1-gpu_tests.log" 2>&1
  echo "gpu tests rc $? in $(( $(date +%s) - t0 )) s of the call" >> "$OUT/call1-machine.txt"
fi
tail -15 "$OUT/call1-gpu_tests.log" 2>/dev/null
cat "$OUT/call1-machine.txt"
