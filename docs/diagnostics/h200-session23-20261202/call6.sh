# call 6: where SOFTMAX = values loses (calls 2-4): the tile trace of `sib` (scripts/device/
# trace_scorer_tiles.py) and of the values genome (trace_value_softmax.py: the same stamps at this
# design's events), B=8 and B=64, last of 16 calls in a graph at ctx 128K. Run on the working tree
# with calls2-4-value-softmax.diff applied (`git apply` it first; `sib` renders as on main).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session23-20261202
timeout 150 python3 scripts/device/trace_scorer_tiles.py $D/variants6-sib.json --batches 8,64 > $OUT/call6-sib-tiles.log 2>&1
mv $OUT/scorer_tiles.json $OUT/call6-sib-tiles.json
timeout 150 python3 $D/trace_value_softmax.py $D/variants6-values.json --batches 8,64 > $OUT/call6-values-tiles.log 2>&1
mv $OUT/scorer_tiles.json $OUT/call6-values-tiles.json
for f in sib values; do echo "== $f"; grep -E "CTAs|tile  [0-7]:" $OUT/call6-$f-tiles.log | cut -c1-330; done
