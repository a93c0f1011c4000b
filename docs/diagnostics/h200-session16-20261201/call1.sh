# call 1: the siblings' merge as they arrive (merge_as_arrived): the siblings' GPU tests, then
# in a graph (16 calls, ctx 128K) against the merge before (290d19f) and the merge kernel, B=8,4,2,1,
# then the timeline of the new merge at B=8
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
D=docs/diagnostics/h200-session16-20261201
timeout 200 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py > $OUT/call1-tests.log 2>&1; tail -3 $OUT/call1-tests.log
timeout 200 python3 scripts/device/time_in_graph.py $D/variants1.json --batches 8,4,2,1 > $OUT/call1-in_graph.log 2>&1; tail -30 $OUT/call1-in_graph.log
mv $OUT/in_graph.json $OUT/call1-in_graph.json
timeout 120 python3 scripts/device/trace_timeline.py $D/variants1t.json --batches 8 --replays 2 > $OUT/call1-timeline.log 2>&1; grep -v "^  call" $OUT/call1-timeline.log | tail -16
mv $OUT/timeline.json $OUT/call1-timeline.json
