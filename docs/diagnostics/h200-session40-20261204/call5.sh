# call 5: knockouts of the i8 tile genome's tail (wrong by design: no wait for the siblings, no
# arrival release nor wait, no merge, no partial stores) beside it and bf16 partials; 16 calls in
# a graph at B=2, 4, 7, 8.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session40-20261204
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call5-machine.txt 2>&1
T0=$(date +%s)
(timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants5.json) > $OUT/call5-prebuild.log 2>&1
echo "prebuild rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call5-machine.txt
timeout 240 python3 scripts/device/time_in_graph.py $D/variants5.json --batches 2,4,7,8 > $OUT/call5-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call5-machine.txt
mv $OUT/in_graph.json $OUT/call5-in_graph.json
cat $OUT/call5-machine.txt
grep -v "^floor" $OUT/call5-in_graph.log | sed 's/one call a graph.*in a graph/in a graph/' | sed 's/ us a call//; s/; checks all ok//' | sed 's@/root/out/@@' | cut -c1-240 | tail -60
