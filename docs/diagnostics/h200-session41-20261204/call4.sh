# call 4: the scorer's warpgroup polls the siblings' count for the value warpgroups (four warps,
# staggered by 100, 200 or 0 ns), against main's text (templates/s41_main.cu.j2, a copy of
# 29e7ec1's template); the pair i8 genome and FP8 adaptive i8.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session41-20261204
T0=$(date +%s)
(timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants4.json) > $OUT/call4-prebuild.log 2>&1
echo "prebuild rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call4-machine.txt
timeout 200 python3 scripts/device/time_in_graph.py $D/variants4.json --batches 1,3,4,5,6,7,8,16,64 > $OUT/call4-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call4-machine.txt
mv $OUT/in_graph.json $OUT/call4-in_graph.json
cat $OUT/call4-machine.txt; ls -la $OUT
grep -v "^floor" $OUT/call4-in_graph.log | sed 's/one call a graph.*in a graph/in a graph/' | sed 's/ us a call//; s/; checks all ok//' | cut -c1-200
