# (to re-run: bash docs/diagnostics/h200-session38-20261203/rebuild_texts.sh here first)
# call 2: the template's new text (the FP8 raw halves' two base addresses; adaptive pairs without
# the second wait) against main's text on five FP8 scorer genomes, among them those whose spill
# the two bases raise (local ptxas: fixed pairs in pair splits 0 -> 8 bytes, held tiles 12 -> 20,
# all first 8 -> 12), 16 calls in a graph at B=1-8 and 64; then the adaptive genome at B=128
# (4 calls in a graph, ctx 32K).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session38-20261203
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call2-machine.txt 2>&1
T0=$(date +%s)
(timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants2.json) > $OUT/call2-prebuild.log 2>&1
echo "prebuild rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call2-machine.txt
timeout 200 python3 scripts/device/time_in_graph.py $D/variants2.json --batches 1,2,4,5,6,7,8,64 > $OUT/call2-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call2-machine.txt
mv $OUT/in_graph.json $OUT/call2-in_graph.json
timeout 120 python3 scripts/device/time_in_graph.py $D/variants2-b128.json --batches 128 --calls 4 --context 32768 > $OUT/call2-b128.log 2>&1
echo "b128 rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call2-machine.txt
mv $OUT/in_graph.json $OUT/call2-b128.json
cat $OUT/call2-machine.txt
grep -v "^floor" $OUT/call2-in_graph.log $OUT/call2-b128.log | sed 's/one call a graph.*in a graph/in a graph/' | sed 's/ us a call//; s/; checks all ok//' | sed 's@/root/out/@@' | cut -c1-120
