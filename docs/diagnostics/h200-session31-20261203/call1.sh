# call 1: the scorer's tiles in arrival groups of column blocks (ARRIVAL_GROUPS = 3 or 9 with
# SCHEDULE = scorer) against the best small-batch genome, 16 calls in a graph; smoke run first.
D=docs/diagnostics/h200-session31-20261203
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call1-machine.txt 2>&1
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants1.json > $OUT/call1-prebuild.log 2>&1; tail -7 $OUT/call1-prebuild.log
timeout 90 python3 scripts/device/time_in_graph.py $D/variants1-smoke.json --batches 8 --calls 2 > $OUT/call1-smoke.log 2>&1 || { echo "smoke failed rc=$?"; tail -20 $OUT/call1-smoke.log; exit 1; }
grep -v "^floor" $OUT/call1-smoke.log | cut -c1-200
grep -q "checks all ok" $OUT/call1-smoke.log || exit 1
timeout 330 python3 scripts/device/time_in_graph.py $D/variants1.json --batches 1,4,5,6,7,8,64 > $OUT/call1-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call1-in_graph.json
grep -v "^floor" $OUT/call1-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
