# call 3: where FP8's small-batch time goes on the new text (commit 584159b's template, comments
# aside): trace_timeline.py and trace_scorer_tiles.py at B=4 and 8, bf16 held beside FP8 with fixed
# and adaptive pairs.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session37-20261203
T0=$(date +%s)
timeout 200 python3 scripts/device/trace_timeline.py $D/variants3-trace.json --batches 4,8 > $OUT/call3-timeline.log 2>&1
echo "timeline rc $? $(( $(date +%s) - T0 )) s"
gzip -c $OUT/timeline.json > $OUT/call3-timeline.json.gz; rm -f $OUT/timeline.json
timeout 250 python3 scripts/device/trace_scorer_tiles.py $D/variants3-trace.json --batches 4,8 > $OUT/call3-tiles.log 2>&1
echo "tiles rc $? $(( $(date +%s) - T0 )) s"
mv $OUT/scorer_tiles.json $OUT/call3-scorer_tiles.json
head -60 $OUT/call3-timeline.log | cut -c1-220
cut -c1-600 $OUT/call3-tiles.log | head -60
