# call 5: probes (edits of the adaptive FP8 genome's rendered source, not kept unless faster): the
# rows of tiles 2-3 (or 2 alone) asked into L2 by the copy engine (cp.async.bulk.prefetch.L2, one
# request a row) before the first dequantization, or after tile 0's; 16 calls in a graph.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session38-20261203
T0=$(date +%s)
(timeout 120 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants5.json) > $OUT/call5-prebuild.log 2>&1
echo "prebuild rc $? $(( $(date +%s) - T0 )) s" > $OUT/call5-machine.txt
timeout 150 python3 scripts/device/time_in_graph.py $D/variants5.json --batches 1,2,4,5,6,7,8,64 > $OUT/call5-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call5-machine.txt
mv $OUT/in_graph.json $OUT/call5-in_graph.json
cat $OUT/call5-machine.txt
grep -v "^floor" $OUT/call5-in_graph.log | sed 's/one call a graph.*in a graph/in a graph/' | sed 's/ us a call//; s/; checks all ok//' | cut -c1-120
