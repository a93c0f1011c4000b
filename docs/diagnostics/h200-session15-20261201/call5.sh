# call 5: COMBINE = pairs (new): the split CTAs in clusters of two merge each other's rows through distributed shared
# memory, then the pairs' partials merge as siblings (half the partial bytes). GPU tests of the siblings and pairs
# genomes; in a graph beside siblings and the merge kernel; then the harness's one call a graph on every workload
# (the working tree had call6-pairs.diff applied, with 4-byte remote stores: call5-template.diff is its template part)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 240 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py > $OUT/call5-tests.log 2>&1; tail -15 $OUT/call5-tests.log
timeout 150 python3 scripts/device/time_in_graph.py docs/diagnostics/h200-session15-20261201/variants7.json --batches 8,4,2,1 2>&1 | grep -v "^floor"; mv $OUT/in_graph.json $OUT/call5-in_graph.json
timeout 200 python3 scripts/device/time_cuda_genomes.py docs/diagnostics/h200-session15-20261201/variants8.json --repeats 1 --timeout-s 60 --json call5-cuda_compare.json 2>&1 | tail -6
