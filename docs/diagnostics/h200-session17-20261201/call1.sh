# call 1: the siblings' GPU tests on a63578d (the sixteenth session's review, never run), then in a
# graph (16 calls, ctx 128K), B=8,4,2,1: sib on d9b36cc's template (.scratch/headd9b.cu.j2) and on
# a63578d, and three start-up variants (variants1.json: the scorer's first P waiting for tile 0
# alone; the value warpgroups asking for tiles 2-3 (or 1-3) only once tile 0 has landed)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
D=docs/diagnostics/h200-session17-20261201
timeout 150 python3 -m pytest -q tests/gpu/test_gpu_siblings_merge.py > $OUT/call1-tests.log 2>&1; tail -3 $OUT/call1-tests.log
timeout 300 python3 scripts/device/time_in_graph.py $D/variants1.json --batches 8,4,2,1 > $OUT/call1-in_graph.log 2>&1; tail -30 $OUT/call1-in_graph.log
mv $OUT/in_graph.json $OUT/call1-in_graph.json
