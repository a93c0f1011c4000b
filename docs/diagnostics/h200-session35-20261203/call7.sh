# call 7: call 6's last variant (FIRST_GATHER = tile_first on FP8) hung: the scorer's first group
# needs tile 1 dequantized before the first P, which the value warpgroups then waited for. Now
# the first pair is dequantized before the loop whatever FIRST is. The GPU tests of the FP8
# genomes (one with tile_first added), then 16 calls in a graph at B=1 and 8 (time left).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session35-20261203
T0=$(date +%s)
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py -k "fp8" > $OUT/call7-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s"; tail -3 $OUT/call7-gpu_tests.log
timeout 40 python3 scripts/device/time_in_graph.py $D/variants7.json --batches 1,8 > $OUT/call7-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s"
grep -v "^floor" $OUT/call7-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
