# call 1: the siblings' merge (COMBINE = siblings): GPU tests, then in a graph and one call a graph beside the separate combine
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 150 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py > $OUT/siblings_tests.log 2>&1; echo "rc $?"; tail -3 $OUT/siblings_tests.log
timeout 120 python3 scripts/device/time_in_graph.py docs/diagnostics/h200-session14-20261201/call1-variants.json --batches 8,1,4 2>&1 | grep -v "^floor"; cp $OUT/in_graph.json $OUT/call1-in_graph.json 2>/dev/null
timeout 150 python3 scripts/device/time_cuda_genomes.py docs/diagnostics/h200-session14-20261201/call1-variants.json --repeats 1 --timeout-s 60 --json call1-cuda_compare.json 2>&1 | tail -25
timeout 100 python3 -m pytest -q tests/gpu/test_gpu_cuda_template.py -k "siblings or scorer-pdl" > $OUT/gpu_tests.log 2>&1; tail -2 $OUT/gpu_tests.log
