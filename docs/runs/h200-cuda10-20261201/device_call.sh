#!/usr/bin/env bash
# One device call (session 18): the closing CUDA evolve run on the template as it now stands
# (a5d2e19: the scorer, COMBINE = siblings with its cooperative launch, the merge share), with the
# same-call comparison before it (the plain-Triton sweep's best genomes, the Gluon genomes, the
# chosen CUDA genomes one call a graph, and sixteen calls in a graph at B = 1, 2, 4, 8). The run
# searches the seesaw slice (MMA, PIPELINE, STAGES fixed as in session 13's run), COMBINE free, so
# siblings genomes are in it; cut at 540 s of the call so that the archive comes back within the
# tool's 600 s. At most 8 files come back: the machine and the step times share call.txt.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site
D=docs/runs/h200-cuda10-20261201
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/call.txt
git log -1 --format='commit %H' >> $OUT/call.txt 2>/dev/null
T0=$(date +%s)
timeout 90 python3 scripts/device/time_triton_best.py 0 > $OUT/triton_best.log 2>&1
echo "triton $(( $(date +%s) - T0 )) s" >> $OUT/call.txt
mkdir -p /tmp/tb && mv $OUT/triton_best.json /tmp/tb/ 2>/dev/null  # into the archive: 8 files at most
timeout 170 python3 scripts/device/time_cuda_genomes.py $D/variants.json --repeats 1 --timeout-s 60 --json same_call.json > $OUT/same_call.log 2>&1
echo "same_call $(( $(date +%s) - T0 )) s" >> $OUT/call.txt
PYTHONPATH=$PWD:/tmp/site timeout 90 python3 scripts/device/time_in_graph.py $D/in_graph_variants.json --batches 1,2,4,8 >> $OUT/same_call.log 2>&1
echo "in_graph $(( $(date +%s) - T0 )) s" >> $OUT/call.txt
timeout $(( 540 - ($(date +%s) - T0) )) python3 -m engine evolve templates/sparse_mla.cu.j2 --budget 200 --seed 18 --timeout-s 120 \
  --objectives score,small_batch --fix MMA=wgmma --fix PIPELINE=seesaw --fix STAGES=2 --out results/h200-cuda10 > $OUT/evolve.log 2>&1
echo "evolve rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call.txt
python3 -m engine compact results/h200-cuda10 >> $OUT/evolve.log 2>&1
python3 -m engine show results/h200-cuda10 --top 10 > $OUT/show.txt 2>&1
tar czf $OUT/bundle.tgz --exclude=kernels --exclude=cubins --exclude='*.lock' results/h200-cuda10 -C /tmp tb
cat $OUT/call.txt; tail -3 $OUT/evolve.log; head -45 $OUT/show.txt | cut -c1-260; grep " ok \|fail\|a graph\|per call" $OUT/same_call.log | cut -c1-300; cut -c1-300 $OUT/triton_best.log | tail -8
