#!/usr/bin/env bash
# The search's pace, one device call's part: the headline command (`python -m engine evolve
# templates/sparse_mla.cu.j2 --budget 200`, TPE, e2e on) on SEED, stopped after SECONDS, then
# `engine show`, the run folder (less its cubins and kernels) as an archive, and the genomes
# recorded by 100, 150 and 200 s since the run's first row (the rows' created_at: a batch's rows
# are written together). Runs of one seed compare: their first batches are the same genomes.
# Usage, from the repository root on the device (carrying .whl), after any arguments of evolve's own:
#   bash scripts/device/pace_call.sh N SEED SECONDS RUN [EVOLVE ARGUMENTS...]
# writes $OUT/callN-machine.txt, $OUT/callN-evolve.log, -show.log and $OUT/RUN.tgz (results/RUN).
set -u
n=$1 seed=$2 seconds=$3 run=$4
shift 4
source "$(dirname "$0")/call_env.sh"  # the wheels on the path, the clocks noted
t0=$(date +%s)
timeout -s TERM "$seconds" python3 -m engine evolve templates/sparse_mla.cu.j2 --budget 200 --seed "$seed" \
  --timeout-s 120 --out "results/$run" "$@" > "$OUT/call$n-evolve.log" 2>&1
echo "evolve $* rc $? $(( $(date +%s) - t0 )) s" >> "$OUT/call$n-machine.txt"
python3 -m engine show "results/$run" > "$OUT/call$n-show.log" 2>&1
tar --exclude=cubins --exclude='kernels*' --exclude=.lock -czf "$OUT/$run.tgz" -C results "$run"
cat "$OUT/call$n-machine.txt"; tail -3 "$OUT/call$n-evolve.log"
python3 - "results/$run" "$*" <<'PY'
import glob, sys
import pyarrow.parquet as pq
rows = [r for f in glob.glob(f"{sys.argv[1]}/*.parquet") for r in pq.read_table(f).to_pylist()]
genomes = [r for r in rows if r["kind"] == "genome"]
if genomes:
    t0 = min(r["created_at"] for r in rows)
    counts = [sum((r["created_at"] - t0).total_seconds() <= s for r in genomes) for s in (100, 150, 200)]
    print(f"{sys.argv[1]} {sys.argv[2]}: genomes by 100/150/200 s {counts}; ok "
          f"{sum(r['status'] == 'ok' for r in genomes)} of {len(genomes)}; GPU evaluations "
          f"{sum(r['eval_s'] for r in genomes):.0f} s")
else:
    print(f"{sys.argv[1]}: no genome rows")
PY
