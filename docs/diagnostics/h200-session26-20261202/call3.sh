# call 3: the scorer's cluster merge with the copy engine's bulk copies into the mergers' shared
# memory (call 2: the threads' own remote stores took 5.9 us at B=7). Its GPU tests first; a
# failure ends the call before the timing.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session26-20261202
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants3.json
grep -l "C75" results/in_graph/cubins/*/ptxas.log; grep -h "spill" results/in_graph/cubins/*/ptxas.log | sort | uniq -c
timeout 200 python3 -m pytest -q -x tests/gpu/test_gpu_cluster_merge.py -k scorer > $OUT/call3-tests.log 2>&1
rc=$?; tail -4 $OUT/call3-tests.log; [ $rc -ne 0 ] && { grep -E "assert|Error|error" $OUT/call3-tests.log | head -30; exit 1; }
timeout 300 python3 scripts/device/time_in_graph.py $D/variants3.json --batches 4,5,6,7 > $OUT/call3-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call3-in_graph.json
grep -v "^floor" $OUT/call3-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
