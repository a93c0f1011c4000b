#!/usr/bin/env bash
# Seventy-seventh session, call 1, any card: the machine-code check (the cubin's SASS, 984d03b and
# after) inside a search. The compile-ahead workers' compile stage disassembles each genome's cubin
# and keeps the verdict beside it (kernel.sass-faults.json); the GPU worker reads it instead of
# disassembling. A 30-genome headline search (about 150 s on an H100), then each row's status
# (`show`) and the count of cubins against the count of verdicts kept beside them (equal, or a
# build the GPU worker found without one).
# From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session77-20261207/call1.sh
n=1 && source scripts/device/call_env.sh
run=results/s77-machine-code
timeout -s TERM 240 python3 -m engine evolve templates/sparse_mla.cu.j2 --budget 30 --seed 77 --timeout-s 120 \
  --out "$run" > "$OUT/call1-evolve.log" 2>&1
echo "evolve rc $?" >> "$OUT/call1-machine.txt"
python3 -m engine show "$run" > "$OUT/call1-show.log" 2>&1
echo "cubins $(ls "$run"/cubins/*/kernel.cubin 2>/dev/null | wc -l)," \
  "verdicts $(ls "$run"/cubins/*/kernel.sass-faults.json 2>/dev/null | wc -l)" >> "$OUT/call1-machine.txt"
cat "$OUT/call1-machine.txt"; tail -3 "$OUT/call1-evolve.log"; head -20 "$OUT/call1-show.log"
