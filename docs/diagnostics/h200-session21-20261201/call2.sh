# call 2: call 1's threaded softmax did not help (B=8 17.25-17.51 against 17.09-17.15), so the
# scorer's softmax is not what the tile waits for. Can the tensor cores take the scorer schedule's
# mix of products at the full rate at all, with no hand-offs? scripts/device/wgmma_mix.py (new).
# Run twice: the first run's kernel had a branch around its value products and read accumulators
# still in flight, so ptxas fenced every product (C7519); its figures are discarded. The second
# run's kernel (its scorer's and value modes) is what call 3's script keeps under the same mode
# names; call 3 added modes and the time until all are done.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
timeout 300 python3 scripts/device/wgmma_mix.py > $OUT/call2-wgmma_mix.log 2>&1; cat $OUT/call2-wgmma_mix.log
