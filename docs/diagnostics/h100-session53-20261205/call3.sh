#!/usr/bin/env bash
# Fifty-third session, call 3 (prepared for a session that gets an H200): issue 4's same-call table
# (point 5) on the template as it stands, the forty-second session's being older than the FP8
# changes of sessions 43-53. The Triton template's best genomes of its archived sweep
# (time_triton_best.py), then in one worker, twice each: the PyTorch reference path, the best CUDA
# genomes of the forty-ninth session's headline run (bf16 and FP8-656, docs/runs/h200-cuda15-20261205/
# show.txt), the two small-batch genomes of the bars and the Gluon template's three genomes
# (time_cuda_genomes.py --reference). The harness's method: one call a graph, 30 replays, every
# output checked. Run from the repository root, carrying .whl:
#   bash docs/diagnostics/h100-session53-20261205/call3.sh
n=3; source scripts/device/call_env.sh
D=docs/diagnostics/h100-session53-20261205
T0=$(date +%s)
timeout 120 python3 scripts/device/time_triton_best.py 0 > $OUT/call3-triton_best.log 2>&1
echo "triton rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call3-machine.txt
mv $OUT/triton_best.json $OUT/call3-triton_best.json
timeout $(( 560 - ($(date +%s) - T0) )) python3 scripts/device/time_cuda_genomes.py $D/variants3.json --repeats 2 --reference --timeout-s 90 --json call3-same_call.json > $OUT/call3-same_call.log 2>&1
echo "same_call rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call3-machine.txt
cat $OUT/call3-machine.txt
cut -c1-260 $OUT/call3-triton_best.log | tail -8
cut -c1-300 $OUT/call3-same_call.log | grep -v "^\s*$" | tail -30
