# call 6: i8 as committed (f54013d; the templates/s40_*.cu.j2 copies are kept here as
# call6-chain/tree/pairs.cu.j2) against its maxima as a tree inside the store, and that with
# (LSE, scale) pairs; 16 calls in a graph at B=1, 2, 4-8.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session40-20261204
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call6-machine.txt 2>&1
T0=$(date +%s)
(timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants6.json) > $OUT/call6-prebuild.log 2>&1
echo "prebuild rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call6-machine.txt
timeout 240 python3 scripts/device/time_in_graph.py $D/variants6.json --batches 1,2,4,5,6,7,8 > $OUT/call6-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call6-machine.txt
mv $OUT/in_graph.json $OUT/call6-in_graph.json
cat $OUT/call6-machine.txt
grep -v "^floor" $OUT/call6-in_graph.log | sed 's/one call a graph.*in a graph/in a graph/' | sed 's/ us a call//; s/; checks all ok//' | sed 's@/root/out/@@' | cut -c1-240 | tail -60
