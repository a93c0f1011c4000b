# call 14 (the review's): the i8 merges through shared helpers (the item-wise merges load and store
# quads in the partials' format; merge_items_i8 gone) change the i8 genomes' SASS outside the
# products loop, the bf16 genomes' not at all: the GPU tests whose names say i8, then the bars'
# genomes, 16 calls in a graph at B=1-8.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session40-20261204
T0=$(date +%s)
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu -k "i8" > $OUT/call14-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s" > $OUT/call14-machine.txt
(timeout 100 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants14.json) > $OUT/call14-prebuild.log 2>&1
echo "prebuild rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call14-machine.txt
timeout 100 python3 scripts/device/time_in_graph.py $D/variants14.json --batches 1,2,3,4,5,6,7,8 > $OUT/call14-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call14-machine.txt
mv $OUT/in_graph.json $OUT/call14-in_graph.json
cat $OUT/call14-machine.txt; tail -2 $OUT/call14-gpu_tests.log
grep -v "^floor" $OUT/call14-in_graph.log | sed 's/one call a graph.*in a graph/in a graph/; s/ us a call//; s/; checks all ok//' | cut -c1-120
