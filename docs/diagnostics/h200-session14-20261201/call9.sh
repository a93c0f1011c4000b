# call 9: after the review: the siblings' words sized once and made before the capture (the harness warms a call on its capture stream); GPU tests, then timings
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 170 python3 -m pytest -q tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_pdl_chain.py > $OUT/call9-tests.log 2>&1; tail -2 $OUT/call9-tests.log
timeout 150 python3 -m pytest -q tests/gpu/test_gpu_cuda_template.py -k "siblings or scorer or mma_sync-bf16 or seesaw-bf16-partials-pdl" > $OUT/call9-template.log 2>&1; tail -2 $OUT/call9-template.log
timeout 80 python3 scripts/device/time_in_graph.py docs/diagnostics/h200-session14-20261201/call9-variants.json --batches 8,1 2>&1 | grep -v "^floor"; mv $OUT/in_graph.json $OUT/call9-in_graph.json
timeout 120 python3 scripts/device/time_cuda_genomes.py docs/diagnostics/h200-session14-20261201/call9-variants.json --repeats 1 --timeout-s 60 --json call9-cuda_compare.json 2>&1 | tail -4
