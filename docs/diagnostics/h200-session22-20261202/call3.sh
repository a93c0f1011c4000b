# call 3: is the merge at 11 and 13 splits held by its second round of items? merge_range takes
# E / S eighths a CTA (372 at 11 splits, 315 at 13) over 256 threads: two rounds, the second with
# 116 or 59 threads. Knockout (wrong results by design, the checks say so): one round only. `sib`
# and `sib` with SPLIT_STEP = tile, 16 calls in a graph at ctx 128K, B = 3, 5, 6.
# Template of calls 1-3: main (727a544) plus SPLIT_STEP, the merge on 256 threads; its code is the committed
# template with calls1-3-tile-splits-only.diff applied (`patch templates/sparse_mla.cu.j2 < calls1-3-tile-splits-only.diff`).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session22-20261202
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants3.json
timeout 230 python3 scripts/device/time_in_graph.py $D/variants3.json --batches 3,5,6 > $OUT/call3-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call3-in_graph.json
grep -v "^floor" $OUT/call3-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
