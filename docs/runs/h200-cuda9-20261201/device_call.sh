#!/usr/bin/env bash
# One device call (session 13): the CUDA template's GPU tests, then the same-call comparison (the
# plain-Triton sweep's best genomes, the Gluon genomes, the chosen CUDA genomes, staged rows among
# them), sixteen calls in a graph of the scorer with and without staged rows, then the closing CUDA
# evolve run over the seesaw slice, SCHEDULE and ROW_STORE free (cut at 530 s of the call, so that
# the archive comes back within the tool's 600 s), compacted and copied out as one archive. At most
# 8 files come back: the machine and the step times share call.txt.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/call.txt
T0=$(date +%s)
timeout 230 python3 -m pytest -q tests/gpu/test_gpu_cuda_template.py > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call.txt
timeout 90 python3 scripts/device/time_triton_best.py 0 > $OUT/triton_best.log 2>&1
echo "triton $(( $(date +%s) - T0 )) s" >> $OUT/call.txt
timeout 170 python3 scripts/device/time_cuda_genomes.py docs/runs/h200-cuda9-20261201/variants.json --repeats 1 --timeout-s 60 --json same_call.json > $OUT/same_call.log 2>&1
echo "same_call $(( $(date +%s) - T0 )) s" >> $OUT/call.txt
PYTHONPATH=$PWD:/tmp/site timeout 60 python3 scripts/device/time_in_graph.py docs/runs/h200-cuda9-20261201/in_graph_variants.json --batches 1,8 >> $OUT/same_call.log 2>&1
echo "in_graph $(( $(date +%s) - T0 )) s" >> $OUT/call.txt
timeout $(( 530 - ($(date +%s) - T0) )) python3 -m engine evolve templates/sparse_mla.cu.j2 --budget 200 --seed 13 --timeout-s 120 \
  --objectives score,small_batch --fix MMA=wgmma --fix PIPELINE=seesaw --fix STAGES=2 --out results/h200-cuda9 > $OUT/evolve.log 2>&1
echo "evolve rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call.txt
python3 -m engine compact results/h200-cuda9 >> $OUT/evolve.log 2>&1
python3 -m engine show results/h200-cuda9 --top 10 > $OUT/show.txt 2>&1
tar czf $OUT/bundle.tgz --exclude=kernels --exclude=cubins --exclude='*.lock' results/h200-cuda9
cat $OUT/call.txt; tail -3 $OUT/gpu_tests.log; tail -3 $OUT/evolve.log; head -45 $OUT/show.txt; grep " ok \|fail\|a graph" $OUT/same_call.log | cut -c1-330; cut -c1-300 $OUT/triton_best.log
