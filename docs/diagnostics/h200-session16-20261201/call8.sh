# call 8: the merge share with a head a thread whose T threads load whole lines together (load j of
# thread i at quads WIDE (j T + i): call8-template.diff against a352436): the siblings' and the PDL
# chain's GPU tests, then in a graph (16 calls, ctx 128K) against the merge before (a352436) and
# call 7's consecutive quads (.scratch/headthread_consecutive.cu.j2), B=8,4,2,1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
D=docs/diagnostics/h200-session16-20261201
timeout 300 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_pdl_chain.py > $OUT/call8-tests.log 2>&1; tail -3 $OUT/call8-tests.log
timeout 250 python3 scripts/device/time_in_graph.py $D/variants8.json --batches 8,4,2,1 > $OUT/call8-in_graph.log 2>&1; tail -20 $OUT/call8-in_graph.log
mv $OUT/in_graph.json $OUT/call8-in_graph.json
