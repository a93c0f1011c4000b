#!/usr/bin/env bash
# Session 10, call 5: lazy rescaling in the seesaw (the running maximum moves only when a pair's
# maximum passes it by more than 8 in log2 units; a warp skips the accumulators' rescale when none
# of its rows moved). The seesaw's GPU tests, then old (.scratch/old.cu.j2 = `git show
# HEAD:templates/sparse_mla.cu.j2`, HEAD 18c7c29) and new in one worker, three repeats.
set -u
D=docs/diagnostics/h200-session10-20261201
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/gpu.txt
T0=$(date +%s)
timeout 200 python3 -m pytest -q tests/gpu/test_gpu_cuda_template.py tests/gpu/test_gpu_cluster_merge.py -k "seesaw or cluster" > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc $? $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
timeout $(( 570 - ($(date +%s) - T0) )) python3 scripts/device/time_cuda_genomes.py $D/call5-variants.json --old .scratch/old.cu.j2 --repeats 3 --timeout-s 60 --json cuda_compare.json > $OUT/compare.log 2>&1
echo "compare rc $? $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
cat $OUT/times.txt; tail -4 $OUT/gpu_tests.log; grep " ok \|fail\|rror" $OUT/compare.log | cut -c1-330
