# call 12: after the review's refactor of the siblings' words (SASS changed): the siblings' GPU tests, then B=8 and B=1 in a graph
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 150 python3 -m pytest -q tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_graph_timer.py > $OUT/call12-tests.log 2>&1; tail -2 $OUT/call12-tests.log
timeout 100 python3 scripts/device/time_in_graph.py docs/diagnostics/h200-session14-20261201/call9-variants.json --batches 8,1 2>&1 | grep -v "^floor"; mv $OUT/in_graph.json $OUT/call12-in_graph.json
