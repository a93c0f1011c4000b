#!/usr/bin/env bash
# Seventy-sixth session, call 3, any card; replaces the seventy-fifth session's call2.sh in
# docs/diagnostics/PREPARED (its two files are among these). The harness now replays each timed
# graph on new values written into the memory it was captured on, checks the inputs after the
# timed calls with a fingerprint of secret weights, holds the harness's names against rebinding,
# and refuses a reply without its request's nonce; a CUDA kernel with device variables in its
# cubin is refused. These GPU tests run the stages that changed: the guards' (cached_copy is now
# incorrect at bench, the floor guard held with a floor 1000x the physical one), the decode
# layer's, the CUDA faults', the H200 eval's, and the export's two (about 330 s).
# From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session76-20261207/call3.sh
n=3 && source scripts/device/call_env.sh
bash scripts/device/template_gpu_tests.sh 3 "$(( ${CALL_SECONDS:-400} - 20 ))" tests/gpu/test_gpu_guards.py \
  tests/gpu/test_gpu_e2e.py tests/gpu/test_gpu_cuda_faults.py tests/gpu/test_h200_eval.py \
  tests/gpu/test_gpu_export.py tests/gpu/test_gpu_build_target.py
cat "$OUT/call3-machine.txt"
