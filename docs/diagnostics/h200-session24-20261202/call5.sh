# call 5: every GPU test of the repository on main as this session leaves it (the template as
# ed3b249: this session changed no template, launcher or evaluator; the six tests the twenty-third
# session's call 8 did not reach are among them).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
timeout 560 python3 -m pytest -q tests/gpu > $OUT/call5-gpu_tests.log 2>&1; tail -5 $OUT/call5-gpu_tests.log
