# call 6: the FP8 scorer's dequantization with one bf16 product a pair of values where the scale
# allows (a normal scale up to 2^15, times 2^112, is a bf16) and the raw words picked before the
# conversion rather than the results after it, beside call 5's text (two products, an edit of the
# rendered source), the held tile and tile_first; the GPU tests of the FP8 genomes; 16 calls in a
# graph at ctx 128K.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session35-20261203
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call6-machine.txt 2>&1
T0=$(date +%s)
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants6.json > $OUT/call6-prebuild.log 2>&1; tail -7 $OUT/call6-prebuild.log
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py -k "fp8" > $OUT/call6-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call6-machine.txt; tail -3 $OUT/call6-gpu_tests.log
timeout $(( 570 - ($(date +%s) - T0) )) python3 scripts/device/time_in_graph.py $D/variants6.json --batches 1,2,4,5,6,7,8,64 > $OUT/call6-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call6-machine.txt
mv $OUT/in_graph.json $OUT/call6-in_graph.json
cat $OUT/call6-machine.txt
grep -v "^floor" $OUT/call6-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
