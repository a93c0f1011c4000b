# (to re-run: bash docs/diagnostics/h200-session36-20261203/rebuild_texts.sh here, then carry that folder)
# call 1: the FP8 scorer with each step's copies issued before its dequantization ("copies first":
# the value threads no longer wait for tile t + 3's rows before tile t + 4's copies go out) against
# main's order (main-8ebe7a4.cu.j2), the held tile with copies first, a leaner conversion (the four
# scales in one load, two chunks' loads ahead of their conversion), knockouts with only the wait
# and the arrival in both orders; bf16 and FP8 `g` beside; the FP8 genomes' GPU tests first.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session36-20261203
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call1-machine.txt 2>&1
T0=$(date +%s)
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants1.json > $OUT/call1-prebuild.log 2>&1; tail -3 $OUT/call1-prebuild.log
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py -k "fp8" > $OUT/call1-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call1-machine.txt; tail -3 $OUT/call1-gpu_tests.log
timeout $(( 560 - ($(date +%s) - T0) )) python3 scripts/device/time_in_graph.py $D/variants1.json --batches 1,2,4,5,6,7,8,64 > $OUT/call1-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call1-machine.txt
mv $OUT/in_graph.json $OUT/call1-in_graph.json
cat $OUT/call1-machine.txt
grep -v "^floor" $OUT/call1-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-150
