#!/usr/bin/env bash
# Sixty-fourth session, call 4: on an H200, the prepared bars call (session 63's call6.sh: the
# small-batch and B=64-128 bars on the template with an entry a split count). On any other card,
# the GPU tests of the compile-ahead worker and of the CUDA template (the build cache's lock and
# the pool's dispatch order changed under them). From the repository root, carrying .whl:
#   bash docs/diagnostics/session64-20261206/call4.sh
n=4; source scripts/device/call_env.sh
if grep -q H200 "$OUT/call4-machine.txt"; then
  bash docs/diagnostics/session63-20261206/call6.sh > "$OUT/call6.log" 2>&1
  cat "$OUT/call4-machine.txt"; tail -40 "$OUT/call6.log"
  exit
fi
timeout -s INT 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_compile_ahead.py \
  tests/gpu/test_gpu_cuda_template.py > "$OUT/call4-gpu_tests.log" 2>&1
echo "gpu tests rc $?" >> "$OUT/call4-machine.txt"
cat "$OUT/call4-machine.txt"; tail -4 "$OUT/call4-gpu_tests.log"
