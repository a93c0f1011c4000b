# call 9: both trace scripts after their shared parts moved into scripts/device/probed.py
# (`sib` at B=8: the timeline, one replay; the tile trace)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session20-20261201
timeout 200 python3 scripts/device/trace_timeline.py $D/variants6.json --batches 8 --replays 1 > $OUT/call9-timeline.log 2>&1; echo "timeline rc=$?"
grep "calls end" $OUT/call9-timeline.log; grep "call  5 " $OUT/call9-timeline.log | cut -c1-300
timeout 200 python3 scripts/device/trace_scorer_tiles.py $D/variants6.json --batches 8 > $OUT/call9-tiles.log 2>&1; echo "tiles rc=$?"
head -4 $OUT/call9-tiles.log | cut -c1-300
rm -f $OUT/timeline.json $OUT/scorer_tiles.json
