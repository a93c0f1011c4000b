# call 3: the flag handoff with its polls in rounds (every late split reloaded together), the
# workspace's half cleared at the call's start (before the first tile) or after the scorer's last
# tile, and with the counts' merge; beside pair i8.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session41-20261204
T0=$(date +%s)
(timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants3.json) > $OUT/call3-prebuild.log 2>&1
echo "prebuild rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call3-machine.txt
timeout 200 python3 scripts/device/time_in_graph.py $D/variants3.json --batches 1,3,4,7,8,16,64 > $OUT/call3-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call3-machine.txt
mv $OUT/in_graph.json $OUT/call3-in_graph.json
cat $OUT/call3-machine.txt; ls -la $OUT
grep -v "^floor" $OUT/call3-in_graph.log | sed 's/one call a graph.*in a graph/in a graph/' | sed 's/ us a call//; s/; checks all ok//' | cut -c1-200
