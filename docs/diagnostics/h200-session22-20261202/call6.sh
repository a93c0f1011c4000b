# call 6: the committed template (the scoring warpgroup in merge_range's merges, SPLIT_STEP): `sib`
# and `sib` with tile splits against main's template (727a544, results/head_template.cu.j2 as in
# call 4) at B = 5, 6, 7, 16 calls in a graph at ctx 128K; then every GPU test of the repository.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session22-20261202
timeout 150 python3 scripts/device/time_in_graph.py $D/variants6.json --batches 5,6,7 > $OUT/call6-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call6-in_graph.json
grep -v "^floor" $OUT/call6-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
timeout 420 python3 -m pytest -q tests/gpu > $OUT/call6-gpu_tests.log 2>&1; tail -5 $OUT/call6-gpu_tests.log
