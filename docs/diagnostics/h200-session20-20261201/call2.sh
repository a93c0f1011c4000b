# call 2: every GPU test of the repository on main (268c9a3 plus this session's diagnostics; the
# nineteenth session ran only the guards' file after its fixture change, 190a7ba)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/call2-machine.txt
git log -1 --format='commit %H' >> $OUT/call2-machine.txt 2>/dev/null
timeout 560 python3 -m pytest -q tests/gpu > $OUT/call2-gpu_tests.log 2>&1; tail -3 $OUT/call2-gpu_tests.log
