#!/usr/bin/env bash
# Call 10: ROW_SHARE = cluster with the pusher's warp following lane 0's test (one __shfl_sync a
# poll) instead of every lane testing; short limits (call 9 hung).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD:/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call10-machine.txt 2>&1
timeout 110 python3 scripts/device/time_in_graph.py docs/diagnostics/h200-session43-20261204/variants10.json --batches 1,8,64 > $OUT/call10-in_graph.log 2>&1
rc=$?
echo "in_graph rc $rc" >> $OUT/call10-machine.txt
mv $OUT/in_graph.json $OUT/call10-in_graph.json 2>/dev/null
cat $OUT/call10-machine.txt; tail -4 $OUT/call10-in_graph.log | cut -c1-300
[ $rc = 0 ] && python3 scripts/in_graph_table.py $OUT/call10-in_graph.json
