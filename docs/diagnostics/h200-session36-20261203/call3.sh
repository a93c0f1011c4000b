# (to re-run: bash docs/diagnostics/h200-session36-20261203/rebuild_texts.sh here, then carry that folder)
# call 3: tile by tile (trace_scorer_tiles, clock64 stamps in the last of 16 calls in a graph; FP8
# also stamps each dequantized tile's copies found in and its arrival) for bf16, main's FP8 scorer
# and the early FP8 scorer with the leaner conversion, B=4 and 8.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session36-20261203
T0=$(date +%s)
timeout 300 python3 scripts/device/trace_scorer_tiles.py $D/variants3-tiles.json --batches 4,8 > $OUT/call3-tiles.log 2>&1
echo "tiles rc $? $(( $(date +%s) - T0 )) s"
mv $OUT/scorer_tiles.json $OUT/call3-scorer_tiles.json
cut -c1-400 $OUT/call3-tiles.log
