# call 3: why merge_range is slower than merge_share at 8 splits (call 2): its threads past the end
# of the CTA's range load the range's last eighth again (at 8 splits and 384 threads, 256 threads'
# second item: all one address). "pred" loads nothing there, "wrap" another eighth of the range
# each; both as edits of the rendered source, at B=5 and B=6 (13 and 11 splits: merge_range) and,
# with merge_range<8> in merge_share<8>'s place, at B=8. 16 calls in a graph at ctx 128K.
D=docs/diagnostics/h200-session34-20261203
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call3-machine.txt 2>&1
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants3.json > $OUT/call3-prebuild.log 2>&1; tail -7 $OUT/call3-prebuild.log
grep -h "spill" results/in_graph/cubins/*/ptxas.log | sort | uniq -c
timeout 400 python3 scripts/device/time_in_graph.py $D/variants3.json --batches 5,6,8 > $OUT/call3-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call3-in_graph.json
grep -v "^floor" $OUT/call3-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
