# call 7: the gather floor with the two reads of a row made together (consecutive CTAs); the scorer with no row copies (outputs wrong by design) beside it
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 250 python3 scripts/device/l2_state.py docs/diagnostics/h200-session14-20261201/call7-variants.json --batches 8,128 2>&1 | grep -v "^empty" | cut -c1-200; mv $OUT/l2_state.json $OUT/call7-l2_state.json
