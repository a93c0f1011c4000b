# call 3: where the start of a B=5 and a B=8 call goes, with the timeline's new stamp of the
# release from griddepcontrol.wait (scripts/device/trace_timeline.py): `sib`, and call 1's
# knockouts of the queries (one box) and of the index loads (wrong results by design), 16 calls
# in a graph at ctx 128K, three replays after a warm one.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session20-20261201
timeout 400 python3 scripts/device/trace_timeline.py $D/variants3.json --batches 5,8 > $OUT/call3-timeline.log 2>&1
mv $OUT/timeline.json $OUT/call3-timeline.json
grep -c "" $OUT/call3-timeline.log; grep "calls end" $OUT/call3-timeline.log
