# call 2: the siblings' split kernel launched cooperatively (the launcher's new attribute) beside the same launch without it
# (docs/diagnostics/h200-session15-20261201/call2-in_graph_coop.py: time_in_graph.py with a '// no-coop' marker honoured), and knockouts of the tile's work
# (outputs wrong by design): the scorer's 8 k-steps that read the queries from shared memory, 5 of each gather thread's 9
# copies, half the value products; the siblings' GPU tests first
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 200 python3 -m pytest -q tests/gpu/test_gpu_siblings_merge.py > $OUT/call2-tests.log 2>&1; tail -3 $OUT/call2-tests.log
timeout 150 python3 docs/diagnostics/h200-session15-20261201/call2-in_graph_coop.py docs/diagnostics/h200-session15-20261201/variants3.json --batches 8,1 2>&1 | grep -v "^floor"; mv $OUT/in_graph.json $OUT/call2-in_graph-b8.json
timeout 150 python3 docs/diagnostics/h200-session15-20261201/call2-in_graph_coop.py docs/diagnostics/h200-session15-20261201/variants3.json --batches 128 --context 32768 --calls 4 2>&1 | grep -v "^floor"; mv $OUT/in_graph.json $OUT/call2-in_graph-b128.json
