#!/usr/bin/env bash
# Seventy-eighth session, call 2, any card. On an H200 first: the bars' in-graph call and issue 4's
# same-call table (session75-20261207/call1.sh, about 120 s). Then, on any card, the GPU tests of
# the paths this session changed under GPU workers: a worker now watches its driver by pidfd
# (evaluators/worker.py), the machine-code verdict is written by cuda_compile.write_whole; the
# CUDA faults (crash, hang, illegal address: the restart path) and the guards.
# From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session78-20261207/call2.sh
t0=$(date +%s)
n=2 && source scripts/device/call_env.sh
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  bash docs/diagnostics/session75-20261207/call1.sh
fi
left=$(( ${CALL_SECONDS:-560} - ($(date +%s) - t0) - 15 ))
bash scripts/device/template_gpu_tests.sh 2 "$left" tests/gpu/test_gpu_cuda_faults.py tests/gpu/test_gpu_guards.py
cat "$OUT/call2-machine.txt"
