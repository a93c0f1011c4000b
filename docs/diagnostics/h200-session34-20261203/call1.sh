# call 1: what seven tiles a CTA would give B=7 (knockout_seven_tiles.py: wrong results by design,
# timing only), beside the best small-batch genome, 16 calls in a graph at ctx 128K.
D=docs/diagnostics/h200-session34-20261203
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call1-machine.txt 2>&1
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants1.json > $OUT/call1-prebuild.log 2>&1; tail -5 $OUT/call1-prebuild.log
grep -h "spill" results/in_graph/cubins/*/ptxas.log | sort | uniq -c
timeout 300 python3 $D/knockout_seven_tiles.py $D/variants1.json --batches 6,7,8 > $OUT/call1-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call1-in_graph.json
grep -v "^floor" $OUT/call1-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
