# call 9: where a call of the siblings' merge goes: trace_timeline.py (now with the siblings' arrival and wait
# stamps) on s and sib, 16 calls in a graph, B=8 and B=1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 200 python3 scripts/device/trace_timeline.py docs/diagnostics/h200-session15-20261201/variants11.json --batches 8,1 --replays 2 > $OUT/call9-timeline.log 2>&1; grep -v "^  call" $OUT/call9-timeline.log | tail -8; grep "call  1 \|call  2 " $OUT/call9-timeline.log | head -8
mv $OUT/timeline.json $OUT/call9-timeline.json
