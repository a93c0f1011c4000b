# (to re-run: bash docs/diagnostics/h200-session37-20261203/rebuild_texts.sh here, then carry that folder)
# call 7: the final text (c584159b plus no-shift.diff: both FP8 conversions read a word's upper
# pair without a shift) against c584159b: 16 calls in a graph at B=1-8 and 64, then 4 calls at
# B=128 (ctx 32K) for the bars, then every GPU test of the repository in the time left.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session37-20261203
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call7-machine.txt 2>&1
T0=$(date +%s)
(timeout 100 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants7-small.json; timeout 100 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants7-b128.json) > $OUT/call7-prebuild.log 2>&1
timeout 120 python3 scripts/device/time_in_graph.py $D/variants7-small.json --batches 1,2,4,5,6,7,8,64 > $OUT/call7-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call7-machine.txt
mv $OUT/in_graph.json $OUT/call7-in_graph.json
timeout 120 python3 scripts/device/time_in_graph.py $D/variants7-b128.json --batches 128 --calls 4 --context 32768 > $OUT/call7-b128.log 2>&1
echo "b128 rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call7-machine.txt
mv $OUT/in_graph.json $OUT/call7-b128.json
git log -1 --format='commit %H (working tree: c584159b plus no-shift.diff)' > $OUT/call7-gpu_tests.log 2>/dev/null
timeout $(( 555 - ($(date +%s) - T0) )) python3 -m pytest -q -p no:cacheprovider tests/gpu >> $OUT/call7-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call7-machine.txt
cat $OUT/call7-machine.txt
grep -v "^floor" $OUT/call7-in_graph.log $OUT/call7-b128.log | sed 's/one call a graph.*in a graph/in a graph/' | sed 's/ us a call//; s/; checks all ok//' | cut -c1-150
tail -5 $OUT/call7-gpu_tests.log
