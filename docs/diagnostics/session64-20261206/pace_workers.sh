#!/usr/bin/env bash
# Prepared in the sixty-fourth session (any card): does the search go faster with 12 compile-ahead
# workers than with the default 8? The headline command on seed 64, with the next batch asked
# ahead (as in that session's call 5: 90 genomes in the first 200 s with 8 workers, H100), once
# with `--compile-workers 8` and once with 12, 240 s each, each its own run folder (no shared
# build cache). Compare the genomes recorded by 100, 150 and 200 s since each run's first row
# (the rows' created_at). nvcc's peak memory on a siblings genome is about 180 MB, so 12 at once
# fit any of the device machines. About 9 minutes. From the repository root, carrying .whl:
#   bash docs/diagnostics/session64-20261206/pace_workers.sh
n=pace; source scripts/device/call_env.sh
for workers in 8 12; do
  run=evolve-s64-w$workers
  t0=$(date +%s)
  timeout -s TERM 240 python3 -m engine evolve templates/sparse_mla.cu.j2 --budget 200 --seed 64 --timeout-s 120 \
    --compile-workers $workers --out "results/$run" > "$OUT/pace-w$workers-evolve.log" 2>&1
  echo "workers $workers: evolve rc $? $(( $(date +%s) - t0 )) s" >> "$OUT/callpace-machine.txt"
  tar --exclude=cubins --exclude='kernels*' --exclude=.lock -czf "$OUT/$run.tgz" -C results "$run"
done
cat "$OUT/callpace-machine.txt"
python3 - "$OUT" <<'PY'
import glob, sys
import pyarrow.parquet as pq
for workers in (8, 12):
    rows = [r for f in glob.glob(f"results/evolve-s64-w{workers}/*.parquet") for r in pq.read_table(f).to_pylist()]
    if not rows:
        print(workers, "workers: no rows"); continue
    t0 = min(r["created_at"] for r in rows)
    genomes = [r for r in rows if r["kind"] == "genome"]
    counts = [sum((r["created_at"] - t0).total_seconds() <= s for r in genomes) for s in (100, 150, 200)]
    print(f"{workers} workers: genomes by 100/150/200 s {counts}; ok {sum(r['status'] == 'ok' for r in genomes)} "
          f"of {len(genomes)}; GPU evaluations {sum(r['eval_s'] for r in genomes):.0f} s")
PY
