#!/usr/bin/env bash
# Session 10, call 1: the CUDA template's GPU tests (with the grid merge), then the grid merge
# timed beside the separate and fused merges, two repeats in one worker.
set -u
D=docs/diagnostics/h200-session10-20261201
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/gpu.txt
T0=$(date +%s)
timeout 240 python3 -m pytest -q tests/gpu/test_gpu_cuda_template.py > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc $? $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
timeout $(( 560 - ($(date +%s) - T0) )) python3 .scratch/time_cuda_genomes.py $D/call1-variants.json --repeats 2 --timeout-s 60 --json cuda_compare.json > $OUT/compare.log 2>&1
echo "compare rc $? $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
cat $OUT/times.txt; tail -15 $OUT/gpu_tests.log; grep " ok \|fail\|rror" $OUT/compare.log | cut -c1-400
