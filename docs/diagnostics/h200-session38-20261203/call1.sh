# call 1: the adaptive pairs' GPU tests (each path forced: new last session, never run on a GPU;
# and the adaptive genomes of the template and siblings tests), then 16 calls in a graph at B=1-8
# and 64: the FP8 scorer's two untested leads of the thirty-seventh session (two base addresses;
# call 1's first version's side-dependent addresses, 8 bytes of spill) and the adaptive pairs
# without their redundant second wait, twice, the second time in reverse order.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session38-20261203
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call1-machine.txt 2>&1
T0=$(date +%s)
(timeout 120 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants1.json) > $OUT/call1-prebuild.log 2>&1
echo "prebuild rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call1-machine.txt
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_cuda_template.py tests/gpu/test_gpu_siblings_merge.py -k "adaptive" > $OUT/call1-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call1-machine.txt
timeout 120 python3 scripts/device/time_in_graph.py $D/variants1.json --batches 1,2,4,5,6,7,8,64 > $OUT/call1-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call1-machine.txt
mv $OUT/in_graph.json $OUT/call1-in_graph.json
timeout 120 python3 scripts/device/time_in_graph.py $D/variants1-reversed.json --batches 1,2,4,5,6,7,8,64 > $OUT/call1-in_graph-reversed.log 2>&1
echo "in_graph reversed rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call1-machine.txt
mv $OUT/in_graph.json $OUT/call1-in_graph-reversed.json
cat $OUT/call1-machine.txt
tail -3 $OUT/call1-gpu_tests.log
grep -v "^floor" $OUT/call1-in_graph.log $OUT/call1-in_graph-reversed.log | sed 's/one call a graph.*in a graph/in a graph/' | sed 's/ us a call//; s/; checks all ok//' | cut -c1-150
