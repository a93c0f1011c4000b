# call 8: the scoring warpgroup's branch now holds only merge_range's code (merge_with_siblings<true>,
# merge_by_range; compile time of `sib` 4.4 s against 6.5 with every merge in both branches, on this
# machine's CPU); the same work as calls 5-7. The siblings' GPU tests, then `sib` and tile at B = 4,
# 5, 16 calls in a graph at ctx 128K.
# Not kept: its template is the committed one with call8-range-only-branch.diff applied
# (`git apply docs/diagnostics/h200-session22-20261202/call8-range-only-branch.diff`).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session22-20261202
timeout 120 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py > $OUT/call8-siblings_tests.log 2>&1; tail -4 $OUT/call8-siblings_tests.log
timeout 90 python3 scripts/device/time_in_graph.py $D/variants8.json --batches 4,5 > $OUT/call8-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call8-in_graph.json
grep -v "^floor" $OUT/call8-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
