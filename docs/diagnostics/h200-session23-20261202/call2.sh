# call 2: as call 1, after call 1's hang: its value warpgroups asked setmaxnreg for 176 registers
# and the scorer gave back only to 160 (128 x 160 + 256 x 176 passes the launch's 384 x 168, so the
# increase waited forever). Now all three warpgroups keep the launch's 168 (the scorer six of the
# queries' blocks in registers). A hang of the tests ends the call before the timing.
# Template: calls2-4-value-softmax.diff with each value warpgroup's step serial (wait for the raw
# scores of t, softmax, issue t's products, gather t + 4, wait for the products) and the scores' read
# barrier arrived after their loads; the scorer waited for it only before storing.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session23-20261202
mkdir -p $OUT/sass  # kept: call2-values-value-step.sass, the value step of sass/sib_values.sass (0x18c0-0x3670, encodings dropped)
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants2.json --sass $OUT/sass
timeout 150 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py -k "value and softmax" > $OUT/call2-tests.log 2>&1
rc=$?; tail -4 $OUT/call2-tests.log; [ $rc -eq 124 ] && { echo "tests hung"; exit 1; }
timeout 300 python3 scripts/device/time_in_graph.py $D/variants2.json --batches 1,2,3,4,5,6,7,8,64 > $OUT/call2-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call2-in_graph.json
grep -v "^floor" $OUT/call2-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
