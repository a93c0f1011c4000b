# call 14: PDL chains the split kernel to the kernel before it (the template and launcher of the commit that adds this file)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 60 python3 -m pytest -q -x tests/gpu/test_gpu_pdl_chain.py > $OUT/pdl_chain.log 2>&1; tail -2 $OUT/pdl_chain.log
timeout 60 python3 scripts/device/time_in_graph.py docs/diagnostics/h200-session13-20261201/call14-variants.json --batches 8,1 2>&1 | grep -v "^floor"
timeout 230 python3 -m pytest -q tests/gpu/test_gpu_cuda_template.py > $OUT/gpu_tests.log 2>&1; tail -2 $OUT/gpu_tests.log
