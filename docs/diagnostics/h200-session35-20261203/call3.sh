# call 3: where the FP8 scorer's extra 2.2 us a tile goes (call 2): knockouts of its dequantization
# (wrong results by design): the conversion's arithmetic replaced by a XOR, the wait for the
# thread's copies dropped, or the whole dequantization skipped (only the wait and the arrival),
# beside the FP8 scorer, the FP8 lockstep genome g and the bf16 small-batch genome; 16 calls in a
# graph at ctx 128K.
D=docs/diagnostics/h200-session35-20261203
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call3-machine.txt 2>&1
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants3.json > $OUT/call3-prebuild.log 2>&1; tail -6 $OUT/call3-prebuild.log
timeout 400 python3 scripts/device/time_in_graph.py $D/variants3.json --batches 1,8,64 > $OUT/call3-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call3-in_graph.json
grep -v "^floor" $OUT/call3-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
