# call 4: the cooperative siblings' launch committed to the launcher: the siblings' GPU tests (two new: the driver
# refuses a cooperative grid one CTA beyond a wave; the launcher's split launch is cooperative exactly when it merges),
# the PDL chain and graph timer tests; then in a graph (all siblings variants cooperative): PDL off, staged rows, and
# knockouts of the partials' traffic (outputs wrong by design): half of each thread's partial stores and half of each
# merge thread's loads; none of either
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 240 python3 -m pytest -q tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_pdl_chain.py tests/gpu/test_gpu_graph_timer.py > $OUT/call4-tests.log 2>&1; tail -3 $OUT/call4-tests.log
timeout 200 python3 scripts/device/time_in_graph.py docs/diagnostics/h200-session15-20261201/variants6.json --batches 8,2,1 2>&1 | grep -v "^floor"; mv $OUT/in_graph.json $OUT/call4-in_graph.json
