# call 2: FP8_MATH = f16 with the queries converted six chunks at a time (unrolled), and two knockouts
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session39-20261204
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call2-machine.txt 2>&1
T0=$(date +%s)
(timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants2.json) > $OUT/call2-prebuild.log 2>&1
echo "prebuild rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call2-machine.txt
timeout 200 python3 scripts/device/time_in_graph.py $D/variants2.json --batches 1,2,4,5,6,7,8,64 > $OUT/call2-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call2-machine.txt
mv $OUT/in_graph.json $OUT/call2-in_graph.json
cat $OUT/call2-machine.txt
grep -v "^floor" $OUT/call2-in_graph.log | sed 's/one call a graph.*in a graph/in a graph/' | sed 's/ us a call//' | sed 's@/root/out/@@' | cut -c1-150
