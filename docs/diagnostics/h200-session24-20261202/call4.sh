# call 4: scripts/device/partial_write_rate.py (new): B=8's merge traffic, 64 KB a CTA on 128 SMs,
# stored (as the epilogue), added in L2 by vector reductions (bf16x2 and fp32), or loaded back (as
# the merge's share): whether reductions where the partials land could replace the store-and-load.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
timeout 120 python3 scripts/device/partial_write_rate.py > $OUT/call4-partial_write_rate.log 2>&1; cat $OUT/call4-partial_write_rate.log | tail -12
