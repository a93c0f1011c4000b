# call 4: the merge as they arrive, its poll relaxed (an acquire fence only when the mask changed:
# call4-relaxed_poll.diff against call 2's template): the siblings' GPU tests, then in a graph (16 calls,
# ctx 128K) against the merge before (290d19f) and call 2's, B=8,4,2,1; then its timeline (B=8, 1)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
D=docs/diagnostics/h200-session16-20261201
timeout 200 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py > $OUT/call4-tests.log 2>&1; tail -3 $OUT/call4-tests.log
timeout 200 python3 scripts/device/time_in_graph.py $D/variants4.json --batches 8,4,2,1 > $OUT/call4-in_graph.log 2>&1; tail -14 $OUT/call4-in_graph.log
mv $OUT/in_graph.json $OUT/call4-in_graph.json
timeout 100 python3 scripts/device/_trace_asarrived.py $D/variants4t.json --batches 8,1 --replays 2 > $OUT/call4-timeline.log 2>&1; grep -v "^  call" $OUT/call4-timeline.log | tail -6; grep "call  2 " $OUT/call4-timeline.log
mv $OUT/timeline.json $OUT/call4-timeline.json
