# call 3: the second tile held until the next pair's first softmax is done (VALUE_ISSUE =
# after_softmax) beside after_scores, both with the first pair gathered alone, in tile splits
# (and pair splits); its GPU test first (every split count the launcher makes). B=1-8, 64, 128.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session25-20261202
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants5.json
grep -l "C75" results/in_graph/cubins/*/ptxas.log; grep -h "spill" results/in_graph/cubins/*/ptxas.log | sort | uniq -c
timeout 120 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py -k "after-softmax" > $OUT/call3-tests.log 2>&1
rc=$?; tail -2 $OUT/call3-tests.log; [ $rc -ne 0 ] && { grep -E "assert|Error|error" $OUT/call3-tests.log | head -20; exit 1; }
timeout 300 python3 scripts/device/time_in_graph.py $D/variants5.json --batches 1,2,3,4,5,6,7,8,64,128 > $OUT/call3-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call3-in_graph.json
grep -v "^floor" $OUT/call3-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-120
