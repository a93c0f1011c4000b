# call 2: where the softmax warpgroup's tile goes. Its two ingredients on the old schedule (the
# value products as two m64n128, five query blocks in the scorer's registers), then tile traces
# of the old genome (trace_scorer_tiles.py) and of the softmax warpgroup's (trace_softmax_wg.py), B=8.
D=docs/diagnostics/h200-session30-20261203
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants2.json > $OUT/call2-prebuild.log 2>&1; tail -5 $OUT/call2-prebuild.log
timeout 250 python3 scripts/device/time_in_graph.py $D/variants2.json --batches 4,8,64 > $OUT/call2-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call2-in_graph.json
grep -v "^floor" $OUT/call2-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
timeout 100 python3 scripts/device/trace_scorer_tiles.py $D/variants2-trace-old.json --batches 8 > $OUT/call2-trace-old.log 2>&1; mv $OUT/scorer_tiles.json $OUT/call2-trace-old.json
timeout 100 python3 $D/trace_softmax_wg.py $D/variants2-trace-new.json --batches 8 > $OUT/call2-trace-new.log 2>&1; mv $OUT/scorer_tiles.json $OUT/call2-trace-new.json
cat $OUT/call2-trace-old.log $OUT/call2-trace-new.log | cut -c1-260
