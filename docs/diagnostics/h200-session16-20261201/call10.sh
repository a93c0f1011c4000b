# call 10: a CTA's partials of its own share of the siblings' merge kept in shared memory (the pair
# buffers), neither stored nor loaded back (call10-template.diff against 4e38367): the siblings' GPU
# tests, then in a graph (16 calls, ctx 128K) against d9b36cc's template (.scratch/headd9b.cu.j2),
# each twice, B=8,4,2,1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
D=docs/diagnostics/h200-session16-20261201
timeout 120 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py > $OUT/call10-tests.log 2>&1; tail -3 $OUT/call10-tests.log
timeout 100 python3 scripts/device/time_in_graph.py $D/variants10.json --batches 8,4,2,1 > $OUT/call10-in_graph.log 2>&1; tail -16 $OUT/call10-in_graph.log
mv $OUT/in_graph.json $OUT/call10-in_graph.json
