# call 3: the GPU tests of the siblings' merge, the template's GPU tests (45, two of them siblings genomes), the PDL chain's
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 120 python3 -m pytest -q tests/gpu/test_gpu_siblings_merge.py > $OUT/call3-siblings_tests.log 2>&1; tail -2 $OUT/call3-siblings_tests.log
timeout 300 python3 -m pytest -q tests/gpu/test_gpu_cuda_template.py > $OUT/call3-gpu_tests.log 2>&1; tail -2 $OUT/call3-gpu_tests.log
timeout 90 python3 -m pytest -q tests/gpu/test_gpu_pdl_chain.py > $OUT/call3-pdl_chain.log 2>&1; tail -2 $OUT/call3-pdl_chain.log
