# call 1: how much of B=5-8's start the queries' copy and the top-k index loads hold. Knockouts
# (wrong results, checks fail by design): each CTA copies only half of its queries' boxes (the
# bytes a 2-CTA cluster's multicast would leave to each, without the cluster's launch cost), one
# box only, and rows whose ids are computed instead of loaded. `sib` twice around them, 16 calls
# in a graph at ctx 128K (edits in variants1.json).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session20-20261201
git log -1 --format='commit %H' > $OUT/call1-machine.txt 2>/dev/null; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $OUT/call1-machine.txt
timeout 400 python3 scripts/device/time_in_graph.py $D/variants1.json --batches 1,4,5,8 > $OUT/call1-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call1-in_graph.json
grep -v "^floor" $OUT/call1-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/'
