# call 8 (closing): every GPU test of the repository on main (f77f19a)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 560 python3 -m pytest -q tests/gpu > $OUT/call8-gpu_tests.log 2>&1; tail -5 $OUT/call8-gpu_tests.log
