# call 3: the rows gathered by the copy engine (GATHER_ENGINE = tma: a box of one row's 64 columns a
# copy), on the small-batch genome, the B=128 genome and the softmax warpgroup; smoke run first.
D=docs/diagnostics/h200-session30-20261203
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants3.json > $OUT/call3-prebuild.log 2>&1; tail -7 $OUT/call3-prebuild.log
timeout 90 python3 scripts/device/time_in_graph.py $D/variants3-smoke.json --batches 8 --calls 2 > $OUT/call3-smoke.log 2>&1 || { echo "smoke failed rc=$?"; tail -20 $OUT/call3-smoke.log; exit 1; }
grep -v "^floor" $OUT/call3-smoke.log | cut -c1-200
grep -q "checks all ok" $OUT/call3-smoke.log || exit 1
timeout 330 python3 scripts/device/time_in_graph.py $D/variants3.json --batches 1,4,5,6,7,8,64,128 > $OUT/call3-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call3-in_graph.json
grep -v "^floor" $OUT/call3-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
