#!/usr/bin/env bash
# Forty-eighth session, call 6: the bars: the bf16 and FP8-656 small-batch genomes in a graph, each twice (the forty-fourth
# session's variants3.json); then FP8-656's copy pattern on valid data (variants6.json): the bf16
# genome copying FP8's six chunks a thread a row, at FP8's places and a 656-byte stride, from the
# bf16 cache (valid bf16 values; the tile's other halves keep earlier tiles' values), beside the
# bf16 genome with the same genes (call 5 put FP8 2.5 us over it at B=8 with nothing converted,
# but on garbage values); then the GPU tests of the template's files on main (their last run on the
# H200 predates the forty-fifth session's template change, e68b104, and its e4m3 tests, 8f7df88).
# Run from the repository root, carrying .whl:
#   bash docs/diagnostics/h200-session48-20261205/call6.sh
n=6; source scripts/device/call_env.sh
bash scripts/device/in_graph_call.sh 6b docs/diagnostics/h200-session44-20261204/variants3.json 1,2,3,4,5,6,7,8,64,128
bash scripts/device/in_graph_call.sh 6c docs/diagnostics/h200-session48-20261205/variants6.json 1,4,5,8,64
t0=$(date +%s)
timeout 420 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py \
  tests/gpu/test_gpu_pdl_chain.py tests/gpu/test_gpu_fp8_dequant.py --durations=5 > "$OUT/call6-gpu_tests.log" 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - t0 )) s" | tee -a "$OUT/call6-machine.txt"
tail -3 "$OUT/call6-gpu_tests.log"
