# call 3: call 2 found the scorer's 36 score products of a 32-row tile taking 910 cycles alone (576
# at the peak) and 1,387 beside two value warpgroups. Which part of them: the 8 k-steps with A
# from shared memory, or the width? scripts/device/wgmma_mix.py now also scores with every k-step
# from registers and 64-row tiles (m64n64k16), and times the mix until all are done.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
timeout 300 python3 scripts/device/wgmma_mix.py > $OUT/call3-wgmma_mix.log 2>&1; cat $OUT/call3-wgmma_mix.log
