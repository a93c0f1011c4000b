# call 3: where the small-batch bar ends. `sib` (and the scorer with the separate merge) in a
# graph at every batch from 3 to 8 at ctx 128K, and at B=1, 4, 8 with a 4K context (the whole
# cache L2-resident: the best case a context can give).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session18-20261201
timeout 300 python3 scripts/device/time_in_graph.py $D/variants3.json --batches 3,5,6,7,8 > $OUT/call3-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call3-in_graph-ctx128k.json
timeout 200 python3 scripts/device/time_in_graph.py $D/variants3.json --batches 1,4,8 --context 4096 >> $OUT/call3-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call3-in_graph-ctx4k.json
cat $OUT/call3-in_graph.log
