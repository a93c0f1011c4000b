# call 1: HANDOFF = flags against counts (the pair i8 genome, FP8 adaptive i8), 16 calls in a
# graph at B=1-8, 16 and 64; then the siblings' GPU tests of the flag genomes (every split count,
# graphs).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session41-20261204
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call1-machine.txt 2>&1
T0=$(date +%s)
(timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants1.json) > $OUT/call1-prebuild.log 2>&1
echo "prebuild rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call1-machine.txt
timeout 200 python3 scripts/device/time_in_graph.py $D/variants1.json --batches 1,2,3,4,5,6,7,8,16,64 > $OUT/call1-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call1-machine.txt
mv $OUT/in_graph.json $OUT/call1-in_graph.json
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py -k "flags" --durations=6 > $OUT/call1-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call1-machine.txt
cat $OUT/call1-machine.txt
grep -v "^floor" $OUT/call1-in_graph.log | sed 's/one call a graph.*in a graph/in a graph/' | sed 's/ us a call//; s/; checks all ok//' | sed 's@/root/out/@@' | cut -c1-240 | tail -45
tail -12 $OUT/call1-gpu_tests.log
