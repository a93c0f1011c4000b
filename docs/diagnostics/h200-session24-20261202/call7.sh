# call 7: scripts/device/partial_write_rate.py after the review's refactor (wgmma_ptx's random bf16
# pairs, one store body for both store modes): it runs on the GPU, and its figures beside calls 4 and 6.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
timeout 120 python3 scripts/device/partial_write_rate.py > $OUT/call7-partial_write_rate.log 2>&1; tail -12 $OUT/call7-partial_write_rate.log
mv $OUT/partial_write_rate.json $OUT/call7-partial_write_rate.json
