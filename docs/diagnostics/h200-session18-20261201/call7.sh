# call 7: the review's split_weights / add_scaled helpers (the merges' arithmetic unchanged, the
# SASS of the siblings genomes reordered): the siblings' GPU tests, then 16 calls in a graph at
# B = 5, 8, 17 (11, 8 and 3 splits) beside 8e419b6's template (.scratch/head8e4.cu.j2 = `git show
# 8e419b6:templates/sparse_mla.cu.j2`), each variant twice.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session18-20261201
timeout 200 python3 -m pytest -q tests/gpu/test_gpu_siblings_merge.py > $OUT/call7-tests.log 2>&1
tail -2 $OUT/call7-tests.log
timeout 150 python3 scripts/device/time_in_graph.py $D/variants7.json --batches 5,8,17 > $OUT/call7-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call7-in_graph.json
grep -v "^floor" $OUT/call7-in_graph.log
