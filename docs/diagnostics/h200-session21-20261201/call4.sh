# call 4: call 1's variants all published P(t) only after the next tile's score products were
# issued, and all lost (the more so the later P came). So: does the value warpgroups' wait for P
# set the pace? `serial`: each tile's softmax and P right after its own scores, the next tile's
# scores issued only then (no overlap of a softmax with products in the scorer at all). `sib`
# twice around it, 16 calls in a graph at ctx 128K (variants4.json).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session21-20261201
timeout 150 python3 $D/prebuild.py $D/variants4.json
timeout 400 python3 scripts/device/time_in_graph.py $D/variants4.json --batches 1,4,5,6,8,64,128 > $OUT/call4-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call4-in_graph.json
grep -v "^floor" $OUT/call4-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-200
