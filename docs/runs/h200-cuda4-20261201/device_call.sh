#!/usr/bin/env bash
# One device call: same-call comparison (Triton best, Gluon best, chosen CUDA genomes), then the
# closing CUDA evolve run, compacted and copied out.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/gpu.txt
T0=$(date +%s)
# (the call also ran a separate precompile script here, in the background; time_cuda_genomes.py
# now compiles its variants in parallel itself, into the same cache)
timeout 90 python3 scripts/device/time_triton_best.py 0 > /tmp/triton_best.log 2>&1
echo "triton $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
timeout 150 python3 scripts/device/time_cuda_genomes.py docs/runs/h200-cuda4-20261201/variants.json --repeats 1 --timeout-s 60 --json same_call.json > $OUT/same_call.log 2>&1
echo "same_call $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
timeout ${EVOLVE_S:-300} python3 -m engine evolve templates/sparse_mla.cu.j2 --budget 200 --seed 3 --timeout-s 120 \
  --objectives score,small_batch --out results/h200-cuda4 ${RESUME:-} > $OUT/evolve.log 2>&1
echo "evolve rc $? $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
python3 -m engine compact results/h200-cuda4 > /tmp/compact.log 2>&1
python3 -m engine show results/h200-cuda4 --top 10 > $OUT/show.txt 2>&1
mv $OUT/triton_best.json /tmp/ 2>/dev/null; mkdir -p /tmp/b && cp /tmp/*.log /tmp/triton_best.json /tmp/b/ 2>/dev/null
tar czf $OUT/bundle.tgz --exclude=kernels --exclude=cubins --exclude='*.lock' results/h200-cuda4 -C /tmp b
cat $OUT/times.txt; tail -5 $OUT/evolve.log; cat $OUT/show.txt | head -40; cat $OUT/same_call.log /tmp/triton_best.log /tmp/compact.log | cut -c1-400
