# (to re-run: bash docs/diagnostics/h200-session37-20261203/rebuild_texts.sh here, then carry that folder)
# call 4: FP8's first copies all out before any dequantization (copies-out-first.cu.j2, 8-12 bytes of
# spill), against c584159b's text (the first pair dequantized, then the full barrier, then tiles 2
# and 3's copies), with fixed and adaptive pairs, FIRST_GATHER all / tile_first, pair splits;
# 16 calls in a graph only (every output checked there).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session37-20261203
T0=$(date +%s)
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants4.json > $OUT/call4-prebuild.log 2>&1; tail -1 $OUT/call4-prebuild.log
timeout 250 python3 scripts/device/time_in_graph.py $D/variants4.json --batches 1,2,4,5,6,7,8,64 > $OUT/call4-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s"
mv $OUT/in_graph.json $OUT/call4-in_graph.json
grep -v "^floor" $OUT/call4-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | sed 's/ us a call//; s/; checks all ok//; s/_ctx128k: 16 in a graph//' | cut -c1-150
