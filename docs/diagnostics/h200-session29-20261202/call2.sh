# call 2: the two GPU tests call 1's 450 s limit cut off (tests/gpu/test_h200_eval.py, the last
# file of tests/gpu; call 1 had passed the 99 before them)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_h200_eval.py > $OUT/call2-gpu_tests.log 2>&1; tail -3 $OUT/call2-gpu_tests.log
