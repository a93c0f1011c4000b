#!/usr/bin/env bash
# Seventy-fourth session, call 3, any card; replaces the seventy-second session's call2.sh in
# docs/diagnostics/PREPARED. This session's H100 ran call2.sh's engine path (call1.sh: all passed)
# and 52 of the CUDA template's 66 GPU tests before its time ran out; so:
# On an H200: the bars' in-graph call (the sixty-third session's bars variants, B=1-8, about 50 s),
# then issue 4's same-call table on the present text (about 70 s), then the CUDA template's GPU
# tests with what is left. On another card: the template's GPU tests this session did not reach
# first (the first-launch timeout, the PDL chain, FP8 dequantization), then the rest of them.
# Tests stopped with SIGINT, so pytest still prints what passed. From the repository root on the
# device, carrying .whl:
#   bash docs/diagnostics/session74-20261207/call3.sh [SECONDS]
# SECONDS: the call's time; default run_prepared.sh's CALL_SECONDS, else 500.
budget=${1:-${CALL_SECONDS:-500}}
t0=$(date +%s)
left() { echo $(( budget - ($(date +%s) - t0) - 10 )); }
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$OUT/call3-card.txt"
if grep -q H200 "$OUT/call3-card.txt"; then
  bash scripts/device/in_graph_call.sh 4 docs/diagnostics/session63-20261206/variants_bars.json 1,2,3,4,5,6,7,8
  bash scripts/device/same_call_table.sh 3 docs/diagnostics/session66-20261206/variants_table.json
  n=5 && source scripts/device/call_env.sh  # the wheels on the path, the clocks in call5-machine.txt
  bash scripts/device/template_gpu_tests.sh 5 "$(left)"
else
  n=5 && source scripts/device/call_env.sh
  bash scripts/device/template_gpu_tests.sh 5 "$(left)" \
    "tests/gpu/test_gpu_cuda_template.py::test_a_cuda_kernel_whose_first_launch_never_ends_is_a_timeout_of_its_first_call" \
    tests/gpu/test_gpu_pdl_chain.py tests/gpu/test_gpu_fp8_dequant.py
  mv "$OUT/call5-gpu_tests.log" "$OUT/call5-gpu_tests-first.log" 2>/dev/null
  bash scripts/device/template_gpu_tests.sh 5 "$(left)"
fi
cat "$OUT/call3-machine.txt" "$OUT/call4-machine.txt" "$OUT/call5-machine.txt" 2>/dev/null
true
