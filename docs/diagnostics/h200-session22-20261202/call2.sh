# call 2: where B=5's and B=3's calls go with the scorer's splits of whole tiles (13 and 22 splits)
# against pairs (11 and 16): scripts/device/trace_timeline.py, 16 calls in a graph at ctx 128K.
# (the per-CTA listing of the last call, "last_call_ctas", was dropped from call2-timeline.json to keep it small)
# Template of calls 1-3: main (727a544) plus SPLIT_STEP, the merge on 256 threads; its code is the committed
# template with calls1-3-tile-splits-only.diff applied (`patch templates/sparse_mla.cu.j2 < calls1-3-tile-splits-only.diff`).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session22-20261202
timeout 300 python3 scripts/device/trace_timeline.py $D/variants2.json --batches 3,5,8 > $OUT/call2-timeline.log 2>&1
mv $OUT/timeline.json $OUT/call2-timeline.json
grep -v "^ *cta\|blockIdx" $OUT/call2-timeline.log | head -80
