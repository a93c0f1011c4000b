# call 9: write_rows reading the scorer's row sums in shared memory (s40_sums: 1da3b2b), and that
# with relaxed polls and one acquire fence (s40_sums_polls: call9-sums-polls.cu.j2), against
# 7f1c22c (s40_main); 16 calls in a graph at B=1, 4, 7, 8.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session40-20261204
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call9-machine.txt 2>&1
T0=$(date +%s)
(timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants9.json) > $OUT/call9-prebuild.log 2>&1
echo "prebuild rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call9-machine.txt
timeout 240 python3 scripts/device/time_in_graph.py $D/variants9.json --batches 1,4,7,8 > $OUT/call9-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call9-machine.txt
mv $OUT/in_graph.json $OUT/call9-in_graph.json
cat $OUT/call9-machine.txt
grep -v "^floor" $OUT/call9-in_graph.log | sed 's/one call a graph.*in a graph/in a graph/' | sed 's/ us a call//; s/; checks all ok//' | sed 's@/root/out/@@' | cut -c1-240 | tail -60
