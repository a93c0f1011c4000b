#!/usr/bin/env bash
# One device call of issue 4's same-call table (point 5): the Triton template's best genomes of its
# archived sweep (time_triton_best.py), then in one worker, twice each, the PyTorch reference path
# and every variant of VARIANTS.json (CUDA genomes, Gluon ones by their "template" field), by
# time_cuda_genomes.py --reference: the harness's method, one call a graph, 30 replays, every
# output checked. Usage, from the repository root on the device (carrying .whl):
#   bash scripts/device/same_call_table.sh N VARIANTS.json
# writes $OUT/callN-machine.txt, callN-triton_best.{log,json} and callN-same_call.{log,json}.
set -u
n=$1 variants=$2
source "$(dirname "$0")/call_env.sh"  # the wheels on the path, the clocks noted
t0=$(date +%s)
timeout 120 python3 scripts/device/time_triton_best.py 0 > "$OUT/call$n-triton_best.log" 2>&1
echo "triton rc $? $(( $(date +%s) - t0 )) s" >> "$OUT/call$n-machine.txt"
mv "$OUT/triton_best.json" "$OUT/call$n-triton_best.json" 2>/dev/null
timeout $(( 560 - ($(date +%s) - t0) )) python3 scripts/device/time_cuda_genomes.py "$variants" --repeats 2 --reference \
  --timeout-s 90 --json "call$n-same_call.json" > "$OUT/call$n-same_call.log" 2>&1
echo "same_call rc $? $(( $(date +%s) - t0 )) s" >> "$OUT/call$n-machine.txt"
cat "$OUT/call$n-machine.txt"
cut -c1-260 "$OUT/call$n-triton_best.log" | tail -8
cut -c1-300 "$OUT/call$n-same_call.log" | grep -v "^\s*$" | tail -30
