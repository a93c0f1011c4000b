#!/usr/bin/env bash
# Sixty-third session, call 2: the template with an entry for each split count of the siblings'
# merge, against its text before (before.cu.j2: `git show 2530255:templates/sparse_mla.cu.j2`,
# not committed). (a) icache_probe: the bf16 and FP8 small-batch genomes alone, + evictor, + the
# layer's tail, B=1 and 8, now and before, with sep; (b) 16 calls in a graph, B=1-8, now and
# before, each twice; (c) the GPU tests of the siblings' merge, the template and the e2e stage.
# Any Hopper card; about 8 minutes. From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session63-20261206/call2.sh
D=docs/diagnostics/session63-20261206
n=2; source scripts/device/call_env.sh
t0=$(date +%s)
timeout 170 python3 scripts/device/icache_probe.py $D/variants_entries_probe.json --batches 1,8 --repeats 1 \
  > "$OUT/call2-icache_probe.log" 2>&1
echo "icache_probe rc $? $(( $(date +%s) - t0 )) s" >> "$OUT/call2-machine.txt"
mv "$OUT/icache_probe.json" "$OUT/call2-icache_probe.json" 2>/dev/null
timeout 170 bash scripts/device/in_graph_call.sh 3 $D/variants_entries.json 1,2,3,4,5,6,7,8 > "$OUT/call3.log" 2>&1
t1=$(date +%s)
timeout -s INT 200 python3 -m pytest -q -p no:cacheprovider --durations=5 tests/gpu/test_gpu_siblings_merge.py \
  tests/gpu/test_gpu_e2e.py tests/gpu/test_gpu_cuda_template.py > "$OUT/call2-gpu_tests.log" 2>&1
echo "gpu tests rc $? $(( $(date +%s) - t1 )) s" >> "$OUT/call2-machine.txt"
cat "$OUT/call2-machine.txt"; tail -12 "$OUT/call2-icache_probe.log" | cut -c1-330; tail -25 "$OUT/call3.log"; tail -4 "$OUT/call2-gpu_tests.log"
