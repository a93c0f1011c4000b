# call 1: a fourth warpgroup for the scorer's softmax (SOFTMAX_WARPGROUP), beside the best
# small-batch genome ("tile held first"), 16 calls in a graph, every output checked against float64.
# A smoke run of the new genome alone first (2 calls a graph, B=8), so that a hang costs 90 s.
D=docs/diagnostics/h200-session30-20261203
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call1-machine.txt 2>&1
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants1.json --sass /tmp/sass > $OUT/call1-prebuild.log 2>&1; tail -5 $OUT/call1-prebuild.log
for f in /tmp/sass/*.sass; do echo "$f USETMAXREG $(grep -c USETMAXREG $f) HGMMA $(grep -c HGMMA $f)"; done | tee -a $OUT/call1-prebuild.log
grep -l "C75" results/in_graph/cubins/*/ptxas.log; grep -h "Used\|spill" results/in_graph/cubins/*/ptxas.log | sort | uniq -c
timeout 90 python3 scripts/device/time_in_graph.py $D/variants1-smoke.json --batches 8 --calls 2 > $OUT/call1-smoke.log 2>&1 || { echo "smoke failed rc=$?"; tail -20 $OUT/call1-smoke.log; exit 1; }
grep -v "^floor" $OUT/call1-smoke.log | cut -c1-200
timeout 400 python3 scripts/device/time_in_graph.py $D/variants1.json --batches 1,2,4,5,6,7,8,64 > $OUT/call1-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call1-in_graph.json
grep -v "^floor" $OUT/call1-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
