# call 2: a CTA's own split of its share of the siblings' merge kept in shared memory, with
# explicit shared stores and loads (call2-template.diff against a63578d): the siblings' and PDL
# chain's GPU tests, then in a graph (16 calls, ctx 128K) against a63578d's template
# (.scratch/headA63.cu.j2), each twice, B=8,4,2,1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
D=docs/diagnostics/h200-session17-20261201
timeout 200 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_pdl_chain.py > $OUT/call2-tests.log 2>&1; tail -3 $OUT/call2-tests.log
timeout 200 python3 scripts/device/time_in_graph.py $D/variants2.json --batches 8,4,2,1 > $OUT/call2-in_graph.log 2>&1; tail -16 $OUT/call2-in_graph.log
mv $OUT/in_graph.json $OUT/call2-in_graph.json
