# call 4: is it the scoring warpgroup's part that makes merge_range slower than merge_share (calls
# 2-3)? merge_range on the value warpgroups' 256 threads alone (MERGE_THREADS = 256, the scorer's
# call removed; two items a thread, all loads in flight), as edits of the rendered source, at B=5
# and B=6 (13 and 11 splits) and, with merge_range<8> in merge_share<8>'s place, at B=8.
D=docs/diagnostics/h200-session34-20261203
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call4-machine.txt 2>&1
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants4.json > $OUT/call4-prebuild.log 2>&1; tail -5 $OUT/call4-prebuild.log
grep -h "spill" results/in_graph/cubins/*/ptxas.log | sort | uniq -c
timeout 400 python3 scripts/device/time_in_graph.py $D/variants4.json --batches 5,6,8 > $OUT/call4-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call4-in_graph.json
grep -v "^floor" $OUT/call4-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
