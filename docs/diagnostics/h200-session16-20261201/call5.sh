# call 5: is the merge as they arrive slow in its loads during the wait, or in itself? In a graph (16
# calls, ctx 128K), B=8 and 1: the merge before (290d19f); call 4's merge; the same with the mask
# published to the merging warps only once all arrived (no loads before); the same with the merging
# warps sleeping 100 ns between reads of an unchanged mask
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
D=docs/diagnostics/h200-session16-20261201
timeout 200 python3 scripts/device/time_in_graph.py $D/variants5.json --batches 8,1 > $OUT/call5-in_graph.log 2>&1; tail -10 $OUT/call5-in_graph.log
mv $OUT/in_graph.json $OUT/call5-in_graph.json
