# call 1: the siblings' merge GPU tests on the folded FIRST_GATHER loop (tile_first's PTX changed
# in a few integer ops, pair_first's and all's did not), then the small batches in a graph (16 calls
# at ctx 128K) and B=64, on main's template.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session27-20261202
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/call1-machine.txt
T0=$(date +%s)
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py > $OUT/call1-tests.log 2>&1
echo "tests rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call1-machine.txt
tail -3 $OUT/call1-tests.log
timeout 100 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants1.json > /dev/null 2>&1
timeout $(( 570 - ($(date +%s) - T0) )) python3 scripts/device/time_in_graph.py $D/variants1.json --batches 1,2,3,4,5,6,7,8,64 > $OUT/call1-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call1-machine.txt
mv $OUT/in_graph.json $OUT/call1-in_graph.json
cat $OUT/call1-machine.txt
grep -v "^floor" $OUT/call1-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-150
