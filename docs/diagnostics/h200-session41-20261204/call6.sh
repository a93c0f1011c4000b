# call 6: the first pair's second tile gathered 300, 600 or 1000 ns after its first (a sleep
# between the two, FIRST_GATHER = pair_first), so that the call's first rows of every CTA reach
# the memory before any second tile's; pair i8 with fixed and adaptive pairs, FP8 adaptive i8; main's text (87f63d5).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session41-20261204
T0=$(date +%s)
(timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants6.json) > $OUT/call6-prebuild.log 2>&1
echo "prebuild rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call6-machine.txt
timeout 200 python3 scripts/device/time_in_graph.py $D/variants6.json --batches 1,4,5,6,7,8,64 > $OUT/call6-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call6-machine.txt
mv $OUT/in_graph.json $OUT/call6-in_graph.json
cat $OUT/call6-machine.txt; ls -la $OUT
grep -v "^floor" $OUT/call6-in_graph.log | sed 's/one call a graph.*in a graph/in a graph/' | sed 's/ us a call//; s/; checks all ok//' | cut -c1-200
