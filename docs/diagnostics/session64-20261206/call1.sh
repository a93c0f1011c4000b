#!/usr/bin/env bash
# Sixty-fourth session, call 1. On an H200: the prepared calls (docs/diagnostics/PREPARED: the bars
# on the template with an entry a split count, then the headline command), in one call. On any
# other card, what the sixty-third session left un-run on a GPU: the updated expectation of
# test_gpu_siblings_merge.py (-k cooperatively) and the three layer scripts refactored onto
# cuda_entry's each_layer_batch / keep_row (icache_probe, layer_inputs, layer_trace), at B=1 on
# variants_bars.json's genomes: do they still run and print rows. From the repository root on the
# device, carrying .whl:
#   bash docs/diagnostics/session64-20261206/call1.sh
D=docs/diagnostics/session63-20261206
n=1; source scripts/device/call_env.sh
if grep -q H200 "$OUT/call1-machine.txt"; then
  bash scripts/device/run_prepared.sh 560
  exit
fi
t0=$(date +%s)
timeout -s INT 150 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py -k cooperatively \
  > "$OUT/call1-gpu_tests.log" 2>&1
echo "siblings -k cooperatively rc $? $(( $(date +%s) - t0 )) s" >> "$OUT/call1-machine.txt"
for s in icache_probe layer_inputs layer_trace; do
  t=$(date +%s)
  args="--batches 1"; [ $s != layer_trace ] && args="$args --repeats 1"
  timeout 100 python3 scripts/device/$s.py $D/variants_bars.json $args > "$OUT/call1-$s.log" 2>&1
  echo "$s rc $? $(( $(date +%s) - t )) s" >> "$OUT/call1-machine.txt"
done
cat "$OUT/call1-machine.txt"; tail -3 "$OUT/call1-gpu_tests.log"
for s in icache_probe layer_inputs layer_trace; do echo "== $s"; tail -8 "$OUT/call1-$s.log" | cut -c1-300; done
