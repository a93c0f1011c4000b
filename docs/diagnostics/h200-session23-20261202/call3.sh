# call 3: SOFTMAX = values with the scorer held back: it issues tile t's scores only once both value
# warpgroups have issued tile t - 2's value products (call 2: the scorer ran ahead and its scores,
# queued before the value products on the tensor cores, made every value warpgroup wait: B=64 104
# us against 77). 16 calls in a graph at ctx 128K against main's template (9797672).
# Template: as call 2's, the read barrier now arrived after the products' issue and waited for by the
# scorer before issuing tile t's scores (as in calls2-4-value-softmax.diff), each value step still serial.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session23-20261202
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants3.json
timeout 300 python3 scripts/device/time_in_graph.py $D/variants3.json --batches 1,2,4,5,6,7,8,64 > $OUT/call3-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call3-in_graph.json
grep -v "^floor" $OUT/call3-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
