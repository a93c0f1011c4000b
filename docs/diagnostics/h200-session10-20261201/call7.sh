#!/usr/bin/env bash
# Session 10, call 7: the merges' shared arithmetic (add_weighted, store_merged) in the combine
# kernel and the fused merge. The merge paths' GPU tests, then old (.scratch/old.cu.j2 = `git show
# HEAD:templates/sparse_mla.cu.j2`, HEAD f74e307) and new in one worker, two repeats.
set -u
D=docs/diagnostics/h200-session10-20261201
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site
T0=$(date +%s)
timeout 150 python3 -m pytest -q tests/gpu/test_gpu_cuda_template.py -k "fused or pdl or partials or value-split" > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc $? $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
timeout $(( 280 - ($(date +%s) - T0) )) python3 scripts/device/time_cuda_genomes.py $D/call7-variants.json --old .scratch/old.cu.j2 --repeats 2 --timeout-s 60 --json cuda_compare.json > $OUT/compare.log 2>&1
echo "compare rc $? $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
cat $OUT/times.txt; tail -3 $OUT/gpu_tests.log; grep " ok \|fail\|rror" $OUT/compare.log | cut -c1-260
