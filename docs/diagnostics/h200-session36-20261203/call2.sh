# (to re-run: bash docs/diagnostics/h200-session36-20261203/rebuild_texts.sh here, then carry that folder)
# call 2: the FP8 scorer (at_p) with a pair's first tile dequantizing tile t + 3 before it waits for
# P(t) ("early", the template's text now), against main's order and call 1's "copies first"
# (copies-first.cu.j2), each also with call 1's leaner conversion (edits); bf16 and FP8 `g`
# beside; the FP8 genomes' GPU tests on the new text first; then where a B=4 and a B=8 call go
# (trace_timeline) for bf16, main's FP8 scorer and the early one.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session36-20261203
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call2-machine.txt 2>&1
T0=$(date +%s)
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants2.json > $OUT/call2-prebuild.log 2>&1; tail -2 $OUT/call2-prebuild.log
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py -k "fp8" > $OUT/call2-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call2-machine.txt; tail -3 $OUT/call2-gpu_tests.log
timeout 200 python3 scripts/device/time_in_graph.py $D/variants2.json --batches 1,2,4,5,6,7,8,64 > $OUT/call2-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call2-machine.txt
mv $OUT/in_graph.json $OUT/call2-in_graph.json
timeout 150 python3 scripts/device/trace_timeline.py $D/variants2-timeline.json --batches 4,8 > $OUT/call2-timeline.log 2>&1
echo "timeline rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call2-machine.txt
gzip -c $OUT/timeline.json > $OUT/call2-timeline.json.gz; rm -f $OUT/timeline.json
cat $OUT/call2-machine.txt
grep -v "^floor" $OUT/call2-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-150
head -40 $OUT/call2-timeline.log | cut -c1-220
