# call 4: the FP8 scorer with each step's dequantization moved before the step's copies go out
# (call 3: the dequantization's shared loads and stores, not its arithmetic or its wait, cost the
# 2.2 us a tile; the guess: the proxy fence after them waits for the copies the thread has in
# flight). Its GPU tests; then 16 calls in a graph at ctx 128K beside a knockout without the fence
# (racy, timing only), FP8 lockstep g and the bf16 small-batch genome.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session35-20261203
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call4-machine.txt 2>&1
T0=$(date +%s)
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants4.json > $OUT/call4-prebuild.log 2>&1; tail -5 $OUT/call4-prebuild.log
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py -k "fp8" > $OUT/call4-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call4-machine.txt; tail -3 $OUT/call4-gpu_tests.log
timeout $(( 570 - ($(date +%s) - T0) )) python3 scripts/device/time_in_graph.py $D/variants4.json --batches 1,4,6,7,8,64 > $OUT/call4-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call4-machine.txt
mv $OUT/in_graph.json $OUT/call4-in_graph.json
cat $OUT/call4-machine.txt
grep -v "^floor" $OUT/call4-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
