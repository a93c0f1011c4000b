# call 3: the siblings' merge loading each sibling's share as it arrives (MERGE_LOADS = as_arrived:
# an arrival mask instead of a count; cp.async of each newly seen sibling's share into shared
# memory, so that after the last arrival only its share is loaded) beside sib and tile. The
# siblings' GPU tests of the two new genomes first (every split count the launcher makes); a
# failure or hang ends the call before the timing.
# Template, genes, GPU test genomes and the tests' dispatch reading: call3-merge-as-arrived.diff (git apply,
# from ed3b249); the call ran three times (call3-attempt1/2-tests.log: see BENCHMARKS).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session24-20261202
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants3.json
grep -l "C75" results/in_graph/cubins/*/ptxas.log; grep -h "spill" results/in_graph/cubins/*/ptxas.log | sort | uniq -c
timeout 200 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py -k "arrived" > $OUT/call3-tests.log 2>&1
rc=$?; tail -4 $OUT/call3-tests.log; [ $rc -ne 0 ] && { grep -E "assert|Error|error" $OUT/call3-tests.log | head -20; exit 1; }
timeout 300 python3 scripts/device/time_in_graph.py $D/variants3.json --batches 1,2,3,4,5,6,7,8 > $OUT/call3-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call3-in_graph.json
grep -v "^floor" $OUT/call3-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
