# call 7: the template now takes the hardware's approximations for the epilogues' and merges'
# exponentials, logarithms and reciprocals (call 6's `fast weights`, with __fdividef for the
# reciprocal and the row normalization's too). `sib` on it, against the accurate functions (edits
# back to e50a3f5's arithmetic) and against merge_range computing every item's weights before
# any item's sums; 16 calls in a graph at ctx 128K, B = 1-8 and 64. Then every GPU test.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session21-20261201
timeout 150 python3 $D/prebuild.py $D/variants7.json
timeout 200 python3 scripts/device/time_in_graph.py $D/variants7.json --batches 1,2,3,4,5,6,7,8,64 > $OUT/call7-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call7-in_graph.json
grep -v "^floor" $OUT/call7-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
timeout 430 python3 -m pytest -q tests/gpu > $OUT/call7-gpu_tests.log 2>&1; tail -5 $OUT/call7-gpu_tests.log
