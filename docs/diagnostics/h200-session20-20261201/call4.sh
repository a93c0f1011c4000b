# call 4: call 3's timeline has the slowest CTA's first rows in 1.1 us after the median one, and
# 1.07 us earlier without index loads: does the queries' copy, issued at the same moment, delay
# the index loads? Probe (edits in variants4.json): the scorer issues the queries' copy only once
# the value warpgroups have issued their index loads (bar.sync / bar.arrive 8, 288). `sib` and the
# probe, each twice, 16 calls in a graph at ctx 128K.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session20-20261201
timeout 300 python3 scripts/device/time_in_graph.py $D/variants4.json --batches 1,4,5,8 > $OUT/call4-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call4-in_graph.json
grep -v "^floor" $OUT/call4-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/'
