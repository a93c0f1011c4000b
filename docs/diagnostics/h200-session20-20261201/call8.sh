# call 8: call 7's knockout left B=5-8 unchanged without the value warpgroups' in-loop row copies,
# so the scorer's own cycle (a pair's score products, then two softmaxes of 570-770 cycles each)
# sets the products phase. Knockout (racy; variants8.json): no proxy fence between the softmax's
# P stores and its publication. Tile trace at B=8 and B=128, then in a graph at B=5, 8.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session20-20261201
timeout 200 python3 scripts/device/trace_scorer_tiles.py $D/variants8.json --batches 8,128 > $OUT/call8-tiles.log 2>&1
mv $OUT/scorer_tiles.json $OUT/call8-scorer_tiles.json
grep -A9 "b8_ctx" $OUT/call8-tiles.log | cut -c1-330
timeout 200 python3 scripts/device/time_in_graph.py $D/variants8.json --batches 5,8 > $OUT/call8-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call8-in_graph.json
grep -v "^floor" $OUT/call8-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-160
