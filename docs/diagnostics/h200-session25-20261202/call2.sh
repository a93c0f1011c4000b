# call 2: the first tile alone (FIRST_GATHER = tile_first) beside the first pair alone, with the
# held second tile, in pair and tile splits (its GPU test first: every split count the launcher
# makes); then where the call's time goes with the first pair alone and the held tile
# (trace_timeline.py, B=6 and 8) and the held tile's products phase tile by tile
# (trace_scorer_tiles.py, B=8).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session25-20261202
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants2.json
grep -l "C75" results/in_graph/cubins/*/ptxas.log; grep -h "spill" results/in_graph/cubins/*/ptxas.log | sort | uniq -c
timeout 120 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py -k "tile-first" > $OUT/call2-tests.log 2>&1
rc=$?; tail -2 $OUT/call2-tests.log; [ $rc -ne 0 ] && { grep -E "assert|Error|error" $OUT/call2-tests.log | head -20; exit 1; }
timeout 200 python3 scripts/device/time_in_graph.py $D/variants2.json --batches 1,2,3,4,5,6,7,8,64 > $OUT/call2-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call2-in_graph.json
grep -v "^floor" $OUT/call2-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-120
timeout 150 python3 scripts/device/trace_timeline.py $D/variants3.json --batches 6,8 > $OUT/call2-timeline.log 2>&1
mv $OUT/timeline.json $OUT/call2-timeline.json; gzip $OUT/call2-timeline.json
grep -c "" $OUT/call2-timeline.log; grep "calls end" $OUT/call2-timeline.log
timeout 100 python3 scripts/device/trace_scorer_tiles.py $D/variants4.json --batches 8 > $OUT/call2-tiles.log 2>&1
mv $OUT/scorer_tiles.json $OUT/call2-scorer_tiles.json
cut -c1-400 $OUT/call2-tiles.log
