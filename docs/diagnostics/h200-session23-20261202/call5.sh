# call 5: the scoring warpgroup's call of the siblings' merge carries only merge_range's code
# (merge_with_siblings<true>; the value warpgroups' call compiles from the same source as before).
# nvcc on the dev machine: `sib` 2.3-2.8 s against 3.2-5.2, the tile genome 3.0-3.9 against
# 3.5-4.2. The scorer genomes' siblings GPU tests, then `sib` and the tile genome against main's
# template (9797672), twice each, 16 calls in a graph at ctx 128K (the twenty-second session's call
# 8 measured a similar change once: tile B=5 14.66 against 14.34-14.42).
# Template: call5-range-only-branch.diff (`git apply` it; cubin keys fbebc4a18620be3d0d1529c0 and
# 02a41a7c1a7b2461e88c5a8b, as in this call).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session23-20261202
timeout 100 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants5.json
timeout 150 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py -k scorer > $OUT/call5-siblings_tests.log 2>&1
rc=$?; tail -3 $OUT/call5-siblings_tests.log; [ $rc -eq 124 ] && { echo "tests hung"; exit 1; }
timeout 300 python3 scripts/device/time_in_graph.py $D/variants5.json --batches 1,2,3,4,5,6,7,8 > $OUT/call5-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call5-in_graph.json
grep -v "^floor" $OUT/call5-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
