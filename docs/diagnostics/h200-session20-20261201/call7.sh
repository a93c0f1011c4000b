# call 7: call 6 has value warpgroup 0 spending 700-900 cycles a tile issuing its share of tile
# t + 4's row copies (between its products' issue and their wait), against 256 cycles of its own
# products. Knockout (wrong results; variants7.json): the value warpgroups copy no rows in their
# loop (the first four tiles' rows still come; later tiles reuse stale buffers). In a graph at
# B=5, 8, 64, 128 (ctx 128K), then the knockout's tile trace at B=8 and B=128.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session20-20261201
timeout 300 python3 scripts/device/time_in_graph.py $D/variants7.json --batches 5,8,64,128 > $OUT/call7-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call7-in_graph.json
grep -v "^floor" $OUT/call7-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-160
python3 -c "
import json; v=json.load(open('$D/variants7.json')); json.dump({'ko': v['no row copies in the loop (wrong)']}, open('/tmp/v7ko.json','w'))"
timeout 200 python3 scripts/device/trace_scorer_tiles.py /tmp/v7ko.json --batches 8,128 > $OUT/call7-tiles.log 2>&1
mv $OUT/scorer_tiles.json $OUT/call7-scorer_tiles.json
grep -A12 "b8_ctx" $OUT/call7-tiles.log | cut -c1-400; grep -A20 "b128_ctx" $OUT/call7-tiles.log | sed -n 10,20p | cut -c1-400
