# call 2: why the flag genome is slower even at B=64 (one split: no flag work): the flag genome,
# without its clears in the scorer's loop, with the counts' merge; beside pair i8; and the SASS
# of each split kernel (cuobjdump) for a look at the scorer's loop.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session41-20261204
T0=$(date +%s)
(timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants2.json) > $OUT/call2-prebuild.log 2>&1
echo "prebuild rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call2-machine.txt
timeout 200 python3 scripts/device/time_in_graph.py $D/variants2.json --batches 1,4,8,64 > $OUT/call2-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call2-machine.txt
mv $OUT/in_graph.json $OUT/call2-in_graph.json
grep " ok " $OUT/call2-prebuild.log | while read -r line; do
  name=$(echo "$line" | sed 's/ ok .*//' | tr ' ' '_'); cubin=$(echo "$line" | sed 's/.* ok //')
  cuobjdump -sass "$cubin" > $OUT/call2-$name.sass 2>&1; done
cat $OUT/call2-machine.txt; ls -la $OUT
grep -v "^floor" $OUT/call2-in_graph.log | sed 's/one call a graph.*in a graph/in a graph/' | sed 's/ us a call//; s/; checks all ok//' | cut -c1-200
