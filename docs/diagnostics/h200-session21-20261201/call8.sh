# call 8 (the change measured here was not kept: no gain; the template stays at 2557998's merge_range): merge_range (the siblings' merge at 3, 5, 6, 7 and 11 splits) now weighs each head once,
# one thread a head into shared memory, its LSE loads out before the partials, instead of every
# thread weighing its own items (S exponentials an item). `sib` on the working tree against `sib` on
# 2557998's template (results/head_template.cu.j2, made before the call by
# `git show 2557998:templates/sparse_mla.cu.j2 > results/head_template.cu.j2` and carried), twice
# each, 16 calls in a graph at ctx 128K, B = 5, 6 (11 splits), 8 (8: merge_share, untouched);
# then the siblings' GPU tests (every split count the launcher makes at top-k 2048).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session21-20261201
timeout 120 python3 $D/prebuild.py $D/variants8.json
timeout 200 python3 scripts/device/time_in_graph.py $D/variants8.json --batches 5,6,8 > $OUT/call8-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call8-in_graph.json
grep -v "^floor" $OUT/call8-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
timeout 200 python3 -m pytest -q tests/gpu/test_gpu_siblings_merge.py > $OUT/call8-gpu_tests.log 2>&1; tail -3 $OUT/call8-gpu_tests.log
