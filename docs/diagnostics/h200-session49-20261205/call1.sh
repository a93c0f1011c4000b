#!/usr/bin/env bash
# Forty-ninth session, call 1: FP8-656's raw copies into bf16's places (each warp's copy one
# 128-byte line of one block a row; the row's scales copied once, by its first thread, beside the
# ring; three warp barriers a tile in the conversion), against main's text (templates/s49_old.cu.j2,
# a copy of afa0812's template, not in the repository) in the same call: the small-batch genome,
# FP8 with the bf16 small-batch genome's genes, the B=128 genome, the bf16 genome for scale
# (variants1.json); then the GPU tests of the FP8 scorer and the e4m3 conversion on the new text.
# Run from the repository root, carrying .whl (and templates/s49_old.cu.j2):
#   bash docs/diagnostics/h200-session49-20261205/call1.sh
n=1; source scripts/device/call_env.sh
bash scripts/device/in_graph_call.sh 1 docs/diagnostics/h200-session49-20261205/variants1.json 1,2,3,4,5,6,7,8,64,128
t0=$(date +%s)
timeout 360 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py \
  tests/gpu/test_gpu_fp8_dequant.py -k "scorer and fp8 or fp8-at-p or dequantizes" --durations=5 > "$OUT/call1-gpu_tests.log" 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - t0 )) s" | tee -a "$OUT/call1-machine.txt"
tail -3 "$OUT/call1-gpu_tests.log"
