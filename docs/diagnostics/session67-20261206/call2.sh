#!/usr/bin/env bash
# Sixty-seventh session, call 2, any card: `evolve --time-limit` on the headline path (the CUDA
# template, TPE, compile-ahead workers, asks ahead, the decode layer on by default): a search with
# a budget it cannot reach in 100 s must stop asking once 100 s have passed, evaluate the batch it
# asked ahead, and end normally; then `--resume` with a budget 8 past the rows it recorded (no
# limit) must go on without evaluating any genome twice. From the repository root on the device,
# carrying .whl:
#   bash docs/diagnostics/session67-20261206/call2.sh
n=2
source scripts/device/call_env.sh
run=results/limit-s67
t0=$(date +%s)
python3 -m engine evolve templates/sparse_mla.cu.j2 --budget 200 --seed 67 --time-limit 100s --out $run \
  > "$OUT/call2-evolve.log" 2>&1
echo "evolve rc $? $(( $(date +%s) - t0 )) s" >> "$OUT/call2-machine.txt"
rows=$(python3 -c "from engine.store.reader import read_records as r; print(sum(x['kind']=='genome' for x in r('$run')))")
echo "genome rows after the limit: $rows" >> "$OUT/call2-machine.txt"
t0=$(date +%s)
python3 -m engine evolve templates/sparse_mla.cu.j2 --budget $((rows + 8)) --seed 67 --out $run --resume \
  > "$OUT/call2-resume.log" 2>&1
echo "resume rc $? $(( $(date +%s) - t0 )) s" >> "$OUT/call2-machine.txt"
python3 - "$run" >> "$OUT/call2-machine.txt" <<'PY'
import collections, sys
from engine.store.reader import read_records
genomes = [r for r in read_records(sys.argv[1]) if r["kind"] == "genome"]
print("genome rows after the resume:", len(genomes), "distinct:", len({r["genome_id"] for r in genomes}),
      "statuses:", dict(collections.Counter(r["status"] for r in genomes)))
PY
grep -h "stopping\|run folder\|interrupted\|error" "$OUT"/call2-evolve.log "$OUT"/call2-resume.log >> "$OUT/call2-machine.txt"
cat "$OUT/call2-machine.txt"
