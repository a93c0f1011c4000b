# call 2: every GPU test of the repository on a5d2e19 (main at the session's start; the template
# changed only in comments since a63578d, whose tests all passed in session 17's call 4)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 540 python3 -m pytest -q tests/gpu > $OUT/call2-gpu_tests.log 2>&1; tail -3 $OUT/call2-gpu_tests.log
