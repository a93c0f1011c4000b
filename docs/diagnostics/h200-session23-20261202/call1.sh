# call 1: SOFTMAX = values (new gene): the scorer stores each tile's raw scores and both value
# warpgroups run the tile's softmax themselves, P in registers as their products' A operand. First
# the new genomes' GPU tests (siblings' merge at every split count; one split, fused), then 16
# calls in a graph at ctx 128K against main's template (9797672, results/head_template.cu.j2).
# Result: the tests hung (call1-tests.log is empty) and time_in_graph.py was killed at 300 s after
# `sib`'s batches (call1-in_graph.log); see call2.sh for why.
# Template: an earlier state of calls2-4-value-softmax.diff (the registers 128 x 160 + 256 x 176 through
# setmaxnreg, six query blocks, each value step serial); not kept, not reproducible from the diffs.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session23-20261202
mkdir -p $OUT/sass
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants1.json --sass $OUT/sass
timeout 200 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py -k "value and softmax" > $OUT/call1-tests.log 2>&1; tail -4 $OUT/call1-tests.log
timeout 300 python3 scripts/device/time_in_graph.py $D/variants1.json --batches 1,2,3,4,5,6,7,8,64 > $OUT/call1-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call1-in_graph.json
grep -v "^floor" $OUT/call1-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
