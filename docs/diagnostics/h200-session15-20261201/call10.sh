# call 10: the siblings' epilogue on the timeline: the partials stored 4 bytes a lane without shuffles (correct), and
# none stored (wrong by design), beside sib; 16 calls in a graph, B=8 and B=1; then the same three in time_in_graph.py
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 120 python3 scripts/device/trace_timeline.py docs/diagnostics/h200-session15-20261201/variants12.json --batches 8,1 --replays 2 > $OUT/call10-timeline.log 2>&1; grep -v "^  call" $OUT/call10-timeline.log | tail -12
mv $OUT/timeline.json $OUT/call10-timeline.json
timeout 100 python3 scripts/device/time_in_graph.py docs/diagnostics/h200-session15-20261201/variants12.json --batches 8,1 2>&1 | grep -v "^floor"; mv $OUT/in_graph.json $OUT/call10-in_graph.json
