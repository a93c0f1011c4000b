# call 1: FP8_MATH = f16 (the FP8-656 scorer's products on f16: e4m3 -> f16 and one product a
# pair) against bf16 math on the FP8 scorer, 16 calls in a graph at B=1-8 and 64 (every output
# checked), the bf16 small-batch genome beside; then B=128 (4 calls in a graph, ctx 32K).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session39-20261204
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call1-machine.txt 2>&1
T0=$(date +%s)
(timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants1.json) > $OUT/call1-prebuild.log 2>&1
echo "prebuild rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call1-machine.txt
timeout 200 python3 scripts/device/time_in_graph.py $D/variants1.json --batches 1,2,4,5,6,7,8,64 > $OUT/call1-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call1-machine.txt
mv $OUT/in_graph.json $OUT/call1-in_graph.json
timeout 120 python3 scripts/device/time_in_graph.py $D/variants1-b128.json --batches 128 --calls 4 --context 32768 > $OUT/call1-b128.log 2>&1
echo "b128 rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call1-machine.txt
mv $OUT/in_graph.json $OUT/call1-b128.json
cat $OUT/call1-machine.txt
grep -v "^floor" $OUT/call1-in_graph.log $OUT/call1-b128.log | sed 's/one call a graph.*in a graph/in a graph/' | sed 's/ us a call//; s/; checks all ok//' | sed 's@/root/out/@@' | cut -c1-150
