#!/usr/bin/env bash
# Session 10, call 3: every GPU test (every launch now through cuLaunchKernelEx; the direct-launch
# tests on their shared setup), then the fused merge's batched loads (merge_items) timed against
# the template before them (.scratch/old.cu.j2 = `git show HEAD:templates/sparse_mla.cu.j2`,
# HEAD 283c809), old and new in one worker, two repeats.
set -u
D=docs/diagnostics/h200-session10-20261201
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/gpu.txt
T0=$(date +%s)
timeout 380 python3 -m pytest -q tests/gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc $? $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
timeout $(( 570 - ($(date +%s) - T0) )) python3 scripts/device/time_cuda_genomes.py $D/call3-variants.json --old .scratch/old.cu.j2 --repeats 2 --timeout-s 60 --json cuda_compare.json > $OUT/compare.log 2>&1
echo "compare rc $? $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
cat $OUT/times.txt; tail -8 $OUT/gpu_tests.log; grep " ok \|fail\|rror" $OUT/compare.log | cut -c1-400
