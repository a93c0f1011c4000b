# (to re-run: bash docs/diagnostics/h200-session37-20261203/rebuild_texts.sh here, then carry that folder)
# call 1: the review's mend of the FP8 scorer (side and first_converted hoisted: other SASS) under
# the FP8 GPU tests, then 16 calls in a graph: main's text against the mend, and two edits of the
# rendered source: adaptive pairs (the scorer pairs tile 2j + 1 with 2j only if its rows are in
# once 2j's are, else 2j's softmax first) and, FP8, the raw words loaded in their place's order
# (no selects after the conversion; 8 bytes of spill).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session37-20261203
T0=$(date +%s)
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants1.json > $OUT/call1-prebuild.log 2>&1; tail -2 $OUT/call1-prebuild.log
timeout 170 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py -k "fp8" > $OUT/call1-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s"; tail -1 $OUT/call1-gpu_tests.log
timeout 300 python3 scripts/device/time_in_graph.py $D/variants1.json --batches 1,2,4,5,6,7,8,64 > $OUT/call1-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s"
mv $OUT/in_graph.json $OUT/call1-in_graph.json
grep -v "^floor" $OUT/call1-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | sed 's/ us a call//; s/; checks all ok//' | cut -c1-150
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $OUT/call1-machine.txt
