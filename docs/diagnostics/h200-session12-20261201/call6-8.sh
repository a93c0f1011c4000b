python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site
timeout 240 python3 -m pytest -q tests/gpu/test_gpu_cuda_template.py -k "first_launch or out_of_bounds" > $OUT/gpu_tests.log 2>&1; tail -15 $OUT/gpu_tests.log | cut -c1-800
