#!/usr/bin/env bash
# Seventy-fifth session, call 2, any card. The export's dispatcher now loads a kernel on each
# call's own GPU (engine/shipped/launcher.py, after this session's device time was spent), and
# tests/gpu/_export_use.py now runs the dispatcher on a CUDA export as well: its two GPU tests
# (test_gpu_export.py, test_gpu_build_target.py, about 70 s) have not run on a GPU since.
# From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session75-20261207/call2.sh
n=6 && source scripts/device/call_env.sh
bash scripts/device/template_gpu_tests.sh 6 "$(( ${CALL_SECONDS:-300} - 20 ))" tests/gpu/test_gpu_export.py tests/gpu/test_gpu_build_target.py
cat "$OUT/call6-machine.txt"
