# call 2 (with scorer-arrival-groups.diff, then scorer-first-pair-groups.patch, applied): the scorer's first pair scored group by group as its
# column blocks land (ARRIVAL_GROUPS = 3, 9), and the merged partials dropped from the L2 without write-back
# (discard.global.L2, an edit of the rendered source after the siblings' merge), 16 calls in a graph.
D=docs/diagnostics/h200-session31-20261203
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants2.json > $OUT/call2-prebuild.log 2>&1; tail -4 $OUT/call2-prebuild.log
timeout 90 python3 scripts/device/time_in_graph.py $D/variants2-smoke.json --batches 8 --calls 2 > $OUT/call2-smoke.log 2>&1 || { echo "smoke failed rc=$?"; tail -20 $OUT/call2-smoke.log; exit 1; }
grep -v "^floor" $OUT/call2-smoke.log | cut -c1-200
grep -q "checks all ok" $OUT/call2-smoke.log || exit 1
timeout 420 python3 scripts/device/time_in_graph.py $D/variants2.json --batches 1,2,4,5,6,7,8,64 > $OUT/call2-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call2-in_graph.json
grep -v "^floor" $OUT/call2-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
