# call 7: the launcher gives the siblings' merge at most 32 splits (MAX_SIBLING_SPLITS): the tile
# genome's B=1 takes 32 splits of two tiles instead of 64 of one (the merge's fallback, 13.4 us in
# call 5). `sib` and tile at B = 1, 2, 5, 16 calls in a graph at ctx 128K, after the siblings' GPU
# tests (every split count the launcher makes, now at most 32).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session22-20261202
timeout 200 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py > $OUT/call7-siblings_tests.log 2>&1; tail -4 $OUT/call7-siblings_tests.log
timeout 200 python3 scripts/device/time_in_graph.py $D/variants7.json --batches 1,2,5 > $OUT/call7-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call7-in_graph.json
grep -v "^floor" $OUT/call7-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
