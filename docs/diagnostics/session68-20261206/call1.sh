#!/usr/bin/env bash
# Sixty-eighth session, call 1, any card: the CUDA fire drill. First the GPU test of each CUDA
# fault on the default and the bf16 small-batch genome (tests/gpu/test_gpu_cuda_faults.py: its
# expected status, then an honest genome on the same worker); then the drill as a user runs it,
# `evolve templates/sparse_mla.cu.j2 --inject-faults 0.4` (TPE, compile-ahead workers, the decode
# layer on by default), whose summary counts the injected rows with their expected status. From
# the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session68-20261206/call1.sh
n=1
source scripts/device/call_env.sh
t0=$(date +%s)
python3 -m pytest -q -m gpu -p no:cacheprovider tests/gpu/test_gpu_cuda_faults.py > "$OUT/call1-gpu_tests.log" 2>&1
echo "gpu tests rc $? $(( $(date +%s) - t0 )) s" >> "$OUT/call1-machine.txt"
t0=$(date +%s)
python3 -m engine evolve templates/sparse_mla.cu.j2 --budget 24 --seed 68 --inject-faults 0.4 --timeout-s 60 \
  --out results/drill-cuda-s68 > "$OUT/call1-drill.log" 2>&1
echo "drill rc $? $(( $(date +%s) - t0 )) s" >> "$OUT/call1-machine.txt"
python3 - results/drill-cuda-s68 >> "$OUT/call1-machine.txt" <<'PY'
import sys
from pathlib import Path
from engine.faults import expected_statuses
from engine.store.reader import read_records
rows = read_records(Path(sys.argv[1]))
for r in rows:
    if r["kind"] == "injected":
        ok = r["status"] in expected_statuses(r["operator"])
        print(f"{r['operator']:<60} {r['status']:<26} {r['stage'] or '':<12} {'expected' if ok else 'NOT EXPECTED'}")
print("genome rows:", sum(r["kind"] == "genome" for r in rows),
      "ok:", sum(r["kind"] == "genome" and r["status"] == "ok" for r in rows))
PY
tail -3 "$OUT/call1-gpu_tests.log" >> "$OUT/call1-machine.txt"
grep -h "expected status\|stopping\|error" "$OUT/call1-drill.log" >> "$OUT/call1-machine.txt"
cat "$OUT/call1-machine.txt"
