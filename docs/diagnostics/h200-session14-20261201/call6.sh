# call 6: is the kernel at the rows' gather floor? The gather-only kernel of l2_state.py beside the scorer (staged rows) at B=8, 64 and 128, ctx 128K and 4K
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 250 python3 scripts/device/l2_state.py docs/diagnostics/h200-session14-20261201/call6-variants.json --batches 8,64,128 2>&1 | tail -20; mv $OUT/l2_state.json $OUT/call6-l2_state_ctx128k.json
timeout 150 python3 scripts/device/l2_state.py docs/diagnostics/h200-session14-20261201/call6-variants.json --batches 128 --context 4096 2>&1 | tail -6; mv $OUT/l2_state.json $OUT/call6-l2_state_ctx4k.json
