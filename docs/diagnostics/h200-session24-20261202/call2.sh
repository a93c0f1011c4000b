# call 2: the value warpgroups' softmax split between them (SOFTMAX = split: the scorer stores each
# tile's raw fp32 scores in shared memory, each value warpgroup turns half of the heads into P, a
# quad a head, one barrier of both a tile; tile t + 1's softmax under tile t's products) beside sib
# and tile. The siblings' GPU tests of the new genome first; a hang ends the call before the timing.
# Template, genes and GPU test genome: call2-split-softmax.diff (git apply, from ed3b249).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session24-20261202
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants2.json
grep -l "C75" results/in_graph/cubins/*/ptxas.log; grep -h "spill" results/in_graph/cubins/*/ptxas.log | sort | uniq -c
timeout 150 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py -k "softmax" > $OUT/call2-tests.log 2>&1
rc=$?; tail -4 $OUT/call2-tests.log; [ $rc -ne 0 ] && { grep -E "assert|Error|error" $OUT/call2-tests.log | head -20; exit 1; }
timeout 330 python3 scripts/device/time_in_graph.py $D/variants2.json --batches 1,2,3,4,5,6,7,8,64,128 > $OUT/call2-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call2-in_graph.json
grep -v "^floor" $OUT/call2-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
