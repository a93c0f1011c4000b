# call 5: the FP8 scorer with its copies and dequantization laid out so that no quarter warp meets
# a bank twice (thread g of a row: chunks g + 8 i, into the first or second place of its pair by
# g / 4; call 3 found the shared loads and stores of the first layout, 8 threads of a row on one
# bank, costing 2.2 us a tile). Its GPU tests, then 16 calls in a graph as in call 2.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session35-20261203
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call5-machine.txt 2>&1
T0=$(date +%s)
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants5.json > $OUT/call5-prebuild.log 2>&1; tail -6 $OUT/call5-prebuild.log
for d in $(grep -o 'results/in_graph/cubins/[0-9a-f]*' $OUT/call5-prebuild.log); do echo $d $(grep -A2 "entry function 'sparse_mla_decode_split'" $d/ptxas.log | grep spill); done
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py -k "fp8" > $OUT/call5-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call5-machine.txt; tail -4 $OUT/call5-gpu_tests.log
timeout $(( 570 - ($(date +%s) - T0) )) python3 scripts/device/time_in_graph.py $D/variants5.json --batches 1,2,4,5,6,7,8,64 > $OUT/call5-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call5-machine.txt
mv $OUT/in_graph.json $OUT/call5-in_graph.json
cat $OUT/call5-machine.txt
grep -v "^floor" $OUT/call5-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
