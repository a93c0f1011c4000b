# call 4: every GPU test of the repository on a63578d (the sixteenth session's review of the
# merge share, whose template had run only the siblings' and PDL chain's tests, calls 1-3)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 540 python3 -m pytest -q tests/gpu > $OUT/call4-gpu_tests.log 2>&1; tail -3 $OUT/call4-gpu_tests.log
