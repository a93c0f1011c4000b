# call 7: is the value product slow with A from registers and B read transposed (MN-major), the
# combination SOFTMAX = values used (call 6's trace: its value products took 1,700-4,700 cycles
# from issue to done)? scripts/device/wgmma_rate.py, now also m64n256k16 with B MN-major, A from
# registers or shared memory (and the first run of the script since its PTX moved to wgmma_ptx.py).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
timeout 200 python3 scripts/device/wgmma_rate.py > $OUT/call7-wgmma_rate.log 2>&1; cat $OUT/call7-wgmma_rate.log | cut -c1-200
