# call 11: the bars on 1da3b2b's template: the bf16 tile genome with bf16 and with i8 partials,
# the sweep's best i8 genome (pairs), FP8 adaptive with and without i8; 16 calls in a graph at
# B=1-8 and 64.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session40-20261204
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call11-machine.txt 2>&1
T0=$(date +%s)
(timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants11.json) > $OUT/call11-prebuild.log 2>&1
echo "prebuild rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call11-machine.txt
timeout 240 python3 scripts/device/time_in_graph.py $D/variants11.json --batches 1,2,3,4,5,6,7,8,64 > $OUT/call11-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call11-machine.txt
mv $OUT/in_graph.json $OUT/call11-in_graph.json
cat $OUT/call11-machine.txt
grep -v "^floor" $OUT/call11-in_graph.log | sed 's/one call a graph.*in a graph/in a graph/' | sed 's/ us a call//; s/; checks all ok//' | sed 's@/root/out/@@' | cut -c1-240 | tail -60
