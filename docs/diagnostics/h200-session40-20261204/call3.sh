# call 3: i8 partials at every split count (merge_share, merge_range and the item-range fallback in
# i8; no bf16 fallback) against bf16 partials, on the bf16 small-batch genome and the FP8-656
# adaptive scorer; 16 calls in a graph at B=1-8 and 64 (every output checked).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session40-20261204
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call3-machine.txt 2>&1
T0=$(date +%s)
(timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants1.json) > $OUT/call3-prebuild.log 2>&1
echo "prebuild rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call3-machine.txt
timeout 240 python3 scripts/device/time_in_graph.py $D/variants1.json --batches 1,2,3,4,5,6,7,8,64 > $OUT/call3-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call3-machine.txt
mv $OUT/in_graph.json $OUT/call3-in_graph.json
cat $OUT/call3-machine.txt
grep -v "^floor" $OUT/call3-in_graph.log | sed 's/one call a graph.*in a graph/in a graph/' | sed 's/ us a call//; s/; checks all ok//' | sed 's@/root/out/@@' | cut -c1-240 | tail -60
