# call 5: every GPU test of the repository on 55f2a7e (merge_range in the template)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 540 python3 -m pytest -q tests/gpu > $OUT/call5-gpu_tests.log 2>&1; tail -3 $OUT/call5-gpu_tests.log
