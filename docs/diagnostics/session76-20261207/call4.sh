#!/usr/bin/env bash
# Seventy-sixth session, call 4, any card; replaces this folder's call3.sh in
# docs/diagnostics/PREPARED. call3.sh ran on an H100 (README here): 34 passed, and the export
# test failed on an assumption of the run's card (fixed in tests/gpu/_export_use.py); the
# build-target test was not reached. These two files (about 110 s), then the guards' file once more
# (the inputs' witness is now a copy where they are small; about 60 s).
# From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session76-20261207/call4.sh
n=4 && source scripts/device/call_env.sh
bash scripts/device/template_gpu_tests.sh 4 "$(( ${CALL_SECONDS:-300} - 20 ))" tests/gpu/test_gpu_export.py \
  tests/gpu/test_gpu_build_target.py tests/gpu/test_gpu_guards.py
cat "$OUT/call4-machine.txt"
