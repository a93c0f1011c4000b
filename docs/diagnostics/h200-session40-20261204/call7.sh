# call 7: the scorer's genes with i8 partials (7f1c22c): every valid SPLIT_STEP x VALUE_ISSUE x
# PAIRING x FIRST_GATHER, and the bf16 tile genome; 16 calls in a graph at B=7 and 8.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session40-20261204
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call7-machine.txt 2>&1
T0=$(date +%s)
(timeout 300 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants7.json) > $OUT/call7-prebuild.log 2>&1
echo "prebuild rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call7-machine.txt
timeout 400 python3 scripts/device/time_in_graph.py $D/variants7.json --batches 7,8 > $OUT/call7-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call7-machine.txt
mv $OUT/in_graph.json $OUT/call7-in_graph.json
cat $OUT/call7-machine.txt
grep -v "^floor" $OUT/call7-in_graph.log | sed 's/one call a graph.*in a graph/in a graph/' | sed 's/ us a call//; s/; checks all ok//' | sed 's@/root/out/@@' | cut -c1-240 | tail -60
