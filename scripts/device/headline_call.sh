#!/usr/bin/env bash
# One device call of the headline command, the body every such call shares: the carried wheels on
# the path, the GPU's clocks noted, `python -m engine evolve templates/sparse_mla.cu.j2 --budget
# 200` on the whole CUDA space (TPE, no --fix) with a SIGTERM before the call's limit as a guard,
# then `engine compact` and `engine show`, and the run folder, less its cubins and kernels, as one
# archive to bring back (docs/runs/ keeps such archives unpacked).
# Usage, from the repository root on the device (the `device` tool's command, carrying .whl):
#   bash scripts/device/headline_call.sh N SEED [--resume]
# writes $OUT/callN-machine.txt, $OUT/callN-evolve.log, -compact.log, -show.log and
# $OUT/evolve-sSEED.tgz (the run folder results/evolve-sSEED). The guard stops a search that one
# call cannot finish (an H100 took about 5 s a genome of the template with an entry a split count,
# 105 of 200; about 2 s with the sixty-fourth session's build lock, build order and asks ahead);
# the next call goes on with --resume, carrying results/evolve-sSEED unpacked from that archive
# (its Optuna journal with it, so that TPE takes up its study where it stopped).
set -u
n=$1 seed=$2 resume=${3:-}
if [ -n "$resume" ] && [ "$resume" != --resume ]; then
  echo "headline_call.sh: the third argument may only be --resume, not '$resume'" >&2
  exit 2
fi
source "$(dirname "$0")/call_env.sh"  # the wheels on the path, the clocks noted
run=evolve-s$seed
t0=$(date +%s)
timeout -s TERM 520 python3 -m engine evolve templates/sparse_mla.cu.j2 --budget 200 --seed "$seed" --timeout-s 120 \
  --out "results/$run" $resume > "$OUT/call$n-evolve.log" 2>&1
echo "evolve rc $? $(( $(date +%s) - t0 )) s" >> "$OUT/call$n-machine.txt"
python3 -m engine compact "results/$run" > "$OUT/call$n-compact.log" 2>&1
python3 -m engine show "results/$run" > "$OUT/call$n-show.log" 2>&1
tar --exclude=cubins --exclude='kernels*' --exclude=.lock -czf "$OUT/$run.tgz" -C results "$run"
cat "$OUT/call$n-machine.txt"; tail -3 "$OUT/call$n-evolve.log"; head -40 "$OUT/call$n-show.log"
