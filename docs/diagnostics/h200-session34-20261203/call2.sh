# call 2: is merge_range slower than merge_share at the same split count? The best small-batch
# genome with the siblings' merge of 8 splits taken by merge_range<8> instead of merge_share<8>, on all
# rows and on the seven-tile knockout plan (knockout_seven_tiles.py), 16 calls in a graph at ctx 128K.
D=docs/diagnostics/h200-session34-20261203
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call2-machine.txt 2>&1
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants2.json > $OUT/call2-prebuild.log 2>&1; tail -5 $OUT/call2-prebuild.log
grep -h "spill" results/in_graph/cubins/*/ptxas.log | sort | uniq -c
timeout 300 python3 $D/knockout_seven_tiles.py $D/variants2.json --batches 6,7,8 > $OUT/call2-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call2-in_graph.json
grep -v "^floor" $OUT/call2-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
