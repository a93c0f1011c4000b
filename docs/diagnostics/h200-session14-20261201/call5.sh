# call 5: the GPU tests that now share replay_checked; the scorer's first tile finished before its second tile's rows are awaited (an edit), with either merge
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 150 python3 -m pytest -q tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_pdl_chain.py > $OUT/call5-tests.log 2>&1; tail -2 $OUT/call5-tests.log
timeout 200 python3 scripts/device/time_in_graph.py docs/diagnostics/h200-session14-20261201/call5-variants.json --batches 8,1 2>&1 | grep -v "^floor"; mv $OUT/in_graph.json $OUT/call5-in_graph.json
