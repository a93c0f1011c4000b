#!/usr/bin/env bash
# Seventy-ninth session, call 1, any card: the worker zygote on a GPU machine. First whether a
# child forked after the zygote's imports (torch, torch._dynamo) can use CUDA (fork_check.py).
# Then the headline search with every genome faulty (seed 2: a launch failure and a crash first,
# each followed by a restart and the canary), budget 4, twice from empty run folders: with
# KG_WORKER_ZYGOTE=off (every worker a new interpreter) and with evolve's own zygote (restarts and
# compile-ahead workers forked). Each worker's start time is in its log's "runner:" lines.
# From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session79-20261207/call1.sh
n=1 && source scripts/device/call_env.sh
here=docs/diagnostics/session79-20261207
timeout 120 python3 "$here/fork_check.py" > "$OUT/call1-fork.txt" 2>&1
echo "fork_check rc $?" >> "$OUT/call1-fork.txt"
for mode in off own; do
  run=results/s79-$mode
  rm -rf "$run"
  t0=$(date +%s.%N)
  if [ $mode = off ]; then export KG_WORKER_ZYGOTE=off; else unset KG_WORKER_ZYGOTE; fi
  timeout -s TERM 220 python3 -m engine evolve templates/sparse_mla.cu.j2 --budget 4 --seed 2 \
    --inject-faults 1 --timeout-s 90 --out "$run" > "$OUT/call1-evolve-$mode.log" 2>&1
  rc=$?
  echo "$mode: evolve rc $rc, $(python3 -c "import time; print(f'{time.time() - $t0:.1f}')") s" >> "$OUT/call1-machine.txt"
  for log in "$run"/worker*.log "$run"/compile-*.log; do
    grep -H "^runner:" "$log"
  done >> "$OUT/call1-starts-$mode.txt" 2>&1
  ls "$run" >> "$OUT/call1-starts-$mode.txt"
done
unset KG_WORKER_ZYGOTE
ls /tmp | grep -c kg-zygote >> "$OUT/call1-machine.txt"
cat "$OUT/call1-fork.txt" "$OUT/call1-machine.txt"; grep -h "injected faults" "$OUT"/call1-evolve-*.log
