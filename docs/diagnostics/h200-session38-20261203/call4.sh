# call 4: the adaptive pairs' GPU tests again, after the test's forced paired path was made to wait
# for the second tile's rows itself (call 3: the template's paired path no longer waits again).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site; timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_cuda_template.py tests/gpu/test_gpu_siblings_merge.py -k adaptive > $OUT/call4-gpu_tests.log 2>&1; echo rc $?; tail -3 $OUT/call4-gpu_tests.log
