# call 11: the timeline of the siblings' merge with staged rows (whole-line stores from shared memory) beside the threads' stores
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 100 python3 scripts/device/trace_timeline.py docs/diagnostics/h200-session15-20261201/variants13.json --batches 8,1 --replays 2 > $OUT/call11-timeline.log 2>&1; grep -v "^  call" $OUT/call11-timeline.log | tail -8
mv $OUT/timeline.json $OUT/call11-timeline.json
