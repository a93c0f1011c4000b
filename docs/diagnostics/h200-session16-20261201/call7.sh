# call 7: the siblings' merge share with a head a thread (each thread its consecutive quads of one
# head, the head's LSEs in its own registers, no barrier after the wait): the siblings' and the
# PDL chain's GPU tests, then in a graph (16 calls, ctx 128K) against the merge before
# (a352436, kept as .scratch/head922.cu.j2), each twice, B=8,4,2,1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
D=docs/diagnostics/h200-session16-20261201
timeout 300 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_pdl_chain.py > $OUT/call7-tests.log 2>&1; tail -3 $OUT/call7-tests.log
timeout 250 python3 scripts/device/time_in_graph.py $D/variants7.json --batches 8,4,2,1 > $OUT/call7-in_graph.log 2>&1; tail -17 $OUT/call7-in_graph.log
mv $OUT/in_graph.json $OUT/call7-in_graph.json
