# call 1: the small-batch bar for the FP8-656 cache (issue 4 names no format for it; every
# small-batch figure so far was bf16): the FP8 genomes of the same-call table (g: lockstep,
# separate merge, PDL, staged rows; f00e9718: the twenty-sixth session's run's FP8 best, siblings,
# PDL off; g with the siblings' merge) beside the bf16 small-batch genome, 16 calls in a graph at
# ctx 128K, B=1, 4, 6, 7, 8; then where a B=7 and a B=8 call of today's bf16 genome go (trace_timeline).
D=docs/diagnostics/h200-session35-20261203
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call1-machine.txt 2>&1
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants1.json > $OUT/call1-prebuild.log 2>&1; tail -5 $OUT/call1-prebuild.log
grep -h "spill" results/in_graph/cubins/*/ptxas.log | sort | uniq -c
timeout 330 python3 scripts/device/time_in_graph.py $D/variants1.json --batches 1,4,6,7,8 > $OUT/call1-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call1-in_graph.json
grep -v "^floor" $OUT/call1-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
timeout 100 python3 scripts/device/trace_timeline.py $D/variants1-timeline.json --batches 7,8 > $OUT/call1-timeline.log 2>&1
gzip -c $OUT/timeline.json > $OUT/call1-timeline.json.gz; rm -f $OUT/timeline.json
head -60 $OUT/call1-timeline.log | cut -c1-200
