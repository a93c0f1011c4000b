# call 7: the scorer's P written with stmatrix (P_STORE = stmatrix: two stores a thread a tile
# instead of eight) on sib and on the held, first pair alone genomes; its GPU test first (every
# split count the launcher makes).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session25-20261202
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants7.json
grep -l "C75" results/in_graph/cubins/*/ptxas.log; grep -h "spill" results/in_graph/cubins/*/ptxas.log | sort | uniq -c
timeout 120 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py -k "stmatrix" > $OUT/call7-tests.log 2>&1
rc=$?; tail -2 $OUT/call7-tests.log; [ $rc -ne 0 ] && { grep -E "assert|Error|error" $OUT/call7-tests.log | head -20; exit 1; }
timeout 200 python3 scripts/device/time_in_graph.py $D/variants7.json --batches 1,2,3,4,5,6,7,8,64 > $OUT/call7-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call7-in_graph.json
grep -v "^floor" $OUT/call7-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-120
