# (to re-run: bash docs/diagnostics/h200-session37-20261203/rebuild_texts.sh here, then carry that folder)
# call 5: FP8 start orders (tile0-then-copies.cu.j2: tile 0 dequantized, the full barrier, tiles
# 2-3 copies out, then tile 1), and edits of convert_due: every step one tile nearer (lag 2), or
# step 0 dequantizing tile 2 alone (tile 3 in step 1); against c584159b with adaptive pairs.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session37-20261203
T0=$(date +%s)
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants5.json > $OUT/call5-prebuild.log 2>&1; tail -1 $OUT/call5-prebuild.log
timeout 250 python3 scripts/device/time_in_graph.py $D/variants5.json --batches 1,2,4,5,6,7,8,64 > $OUT/call5-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s"
mv $OUT/in_graph.json $OUT/call5-in_graph.json
grep -v "^floor" $OUT/call5-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | sed 's/ us a call//; s/; checks all ok//; s/_ctx128k: 16 in a graph//' | cut -c1-150
