# call 4: the scorer's warpgroup joins the siblings' merge (MERGE_THREADS = 384: merge_range in one
# round of items at 11 and 13 splits), with and without SPLIT_STEP = tile, threads' and staged row
# stores, against main's template (727a544, results/head_template.cu.j2, made before the call by
# `git show 727a544:templates/sparse_mla.cu.j2 > results/head_template.cu.j2` and carried); 16 calls
# in a graph at ctx 128K. First the siblings' GPU tests (every split count the launcher makes).
# The template of call 4 (every siblings' merge with the scoring warpgroup in its wait, merge_share and
# the fallback on the first 256 threads) is the committed one with call4-all-384.diff applied
# (`patch -p0 templates/sparse_mla.cu.j2 < call4-all-384.diff`).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session22-20261202
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants4.json
timeout 200 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py > $OUT/call4-siblings_tests.log 2>&1; tail -4 $OUT/call4-siblings_tests.log
timeout 240 python3 scripts/device/time_in_graph.py $D/variants4.json --batches 1,2,3,4,5,6,8 > $OUT/call4-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call4-in_graph.json
grep -v "^floor" $OUT/call4-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
