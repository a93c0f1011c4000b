# call 4: merge_range (the siblings' share for split counts that do not divide the 64 heads:
# 3, 5, 6, 7, 11) on the GPU: the siblings' and the PDL chain's GPU tests, then 16 calls in a
# graph (ctx 128K) at the batches that take those counts (B = 5, 6: 11 splits; 9: 7; 10: 6; 12: 5;
# 17: 3) and at B=8 (8 splits, unchanged), beside a5d2e19's template (.scratch/headA5D.cu.j2 =
# `git show a5d2e19:templates/sparse_mla.cu.j2`) in the same process.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session18-20261201
timeout 300 python3 -m pytest -q tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_pdl_chain.py > $OUT/call4-tests.log 2>&1
tail -3 $OUT/call4-tests.log
timeout 240 python3 scripts/device/time_in_graph.py $D/variants4.json --batches 5,6,8,9,10,12,17 > $OUT/call4-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call4-in_graph.json
grep -v "^floor" $OUT/call4-in_graph.log
