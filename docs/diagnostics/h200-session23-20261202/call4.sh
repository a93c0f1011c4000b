# call 4: SOFTMAX = values with each value warpgroup's softmax of tile t run while its products of
# tile t - 1 are in flight (two A fragments in turn; the accumulators rescaled after the wait), the
# scorer held back as in call 3. Pair splits only (ptxas: 124 bytes of spills, no serialization;
# the tile genome's odd last tile serializes, C7512). Against main's template (9797672).
# Template: calls2-4-value-softmax.diff exactly (`git apply` it; the values genome builds to cubin
# key 474bfa3aec56a812350c1da1, as in this call).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session23-20261202
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants4.json
timeout 200 python3 scripts/device/time_in_graph.py $D/variants4.json --batches 1,2,4,5,6,8,64 > $OUT/call4-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call4-in_graph.json
grep -v "^floor" $OUT/call4-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
