# call 6: the scorer's products phase tile by tile (scripts/device/trace_scorer_tiles.py, new):
# `sib` at B=8 (8 splits, 8 tiles a CTA) and B=128 (one split, 64 tiles a CTA), ctx 128K, the last
# of 16 calls in a graph, clock64 cycles from each CTA's first instruction, medians over the CTAs.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session20-20261201
timeout 400 python3 scripts/device/trace_scorer_tiles.py $D/variants6.json --batches 8,128 > $OUT/call6-tiles.log 2>&1
mv $OUT/scorer_tiles.json $OUT/call6-scorer_tiles.json
head -c 9000 $OUT/call6-tiles.log
