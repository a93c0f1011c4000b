# call 6: the twentieth session's timeline has the merge after the last sibling's arrival taking
# 2.8 us at B=5 (11 splits, merge_range) against 1.6 at B=8 (8 splits, merge_share), with the
# same bytes a CTA. Is it the weights' arithmetic (expf, logf and a division per item, each expf
# behind a branch in the SASS; 22 a thread at 11 splits)? `fast weights`: __expf, __logf, a
# reciprocal in split_weights (both merges); a knockout (wrong results): merge_range without the
# weights. 16 calls in a graph at ctx 128K, B = 1, 4, 5, 6, 8 (32, 16, 11, 11, 8 splits).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session21-20261201
timeout 150 python3 $D/prebuild.py $D/variants6.json
timeout 400 python3 scripts/device/time_in_graph.py $D/variants6.json --batches 1,4,5,6,8 > $OUT/call6-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call6-in_graph.json
grep -v "^floor" $OUT/call6-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-200
