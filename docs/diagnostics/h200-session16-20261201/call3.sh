# call 3: where the merge as they arrive (call 2's template, kept in .scratch/asarrived.cu.j2; its diff
# call2-template.diff) spends its time: the timeline at B=8 and B=1 with the new merge's stamps and the
# end stamped by warp 1, a merging warp (call3-trace_asarrived.diff: trace_timeline.py so changed);
# then every GPU test of the repository on the committed code (290d19f: the template as before)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
D=docs/diagnostics/h200-session16-20261201
timeout 100 python3 scripts/device/_trace_asarrived.py $D/variants3t.json --batches 8,1 --replays 2 > $OUT/call3-timeline.log 2>&1; grep -v "^  call" $OUT/call3-timeline.log | tail -6; grep "call  2 " $OUT/call3-timeline.log
mv $OUT/timeline.json $OUT/call3-timeline.json
timeout 470 python3 -m pytest -q tests/gpu > $OUT/call3-gpu_tests.log 2>&1; tail -5 $OUT/call3-gpu_tests.log
