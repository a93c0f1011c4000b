# call 5: as call 4, with the scorer's warpgroup joining only merge_range's split counts (3, 5, 6, 7, 11,
# and 13 and 22 with SPLIT_STEP = tile); merge_share's and the fallback's wait on the 256 epilogue
# threads as on main (call 4 had B=4, 16 splits, 0.3 us slower with all 384 in their wait). Against
# main's template (727a544, results/head_template.cu.j2 as in call 4); 16 calls in a graph at ctx
# 128K. First the siblings' GPU tests.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session22-20261202
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants5.json
timeout 200 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py > $OUT/call5-siblings_tests.log 2>&1; tail -4 $OUT/call5-siblings_tests.log
timeout 240 python3 scripts/device/time_in_graph.py $D/variants5.json --batches 1,2,3,4,5,6,8 > $OUT/call5-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call5-in_graph.json
grep -v "^floor" $OUT/call5-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
