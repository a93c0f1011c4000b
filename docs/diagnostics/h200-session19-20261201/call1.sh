# call 1: every GPU test of the repository on 1b2f8c6 (main as the eighteenth session left it; its
# last full GPU run was on 55f2a7e, before the review's merge helpers and the device-derived test)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/call1-machine.txt
git log -1 --format='commit %H' >> $OUT/call1-machine.txt 2>/dev/null
timeout 540 python3 -m pytest -q tests/gpu > $OUT/call1-gpu_tests.log 2>&1; tail -3 $OUT/call1-gpu_tests.log
