# call 2: the scorer's softmax made leaner: make_variants2.py's edits of the rendered source of the
# best small-batch genome on the template at 20ff46f (cumulative: ex2.approx.ftz, the quad's shuffles
# behind a warp vote, trees for the maxima and sums, the row flags read before the wait), and the same
# four in the working tree's template; 16 calls in a graph, a smoke run of the last two's checks first.
D=docs/diagnostics/h200-session33-20261203
git show 20ff46f:templates/sparse_mla.cu.j2 > $D/main.cu.j2
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants2.json > $OUT/call2-prebuild.log 2>&1; tail -5 $OUT/call2-prebuild.log
grep -l "C75" results/in_graph/cubins/*/ptxas.log; grep -h "spill" results/in_graph/cubins/*/ptxas.log | sort | uniq -c
timeout 90 python3 scripts/device/time_in_graph.py $D/variants2-smoke.json --batches 1,5,8 --calls 2 > $OUT/call2-smoke.log 2>&1 || { echo "smoke failed rc=$?"; tail -20 $OUT/call2-smoke.log; exit 1; }
grep -v "^floor" $OUT/call2-smoke.log | cut -c1-200
grep " us a call" $OUT/call2-smoke.log | grep -qv "checks all ok" && exit 1
timeout 330 python3 scripts/device/time_in_graph.py $D/variants2.json --batches 1,4,5,6,7,8,64 > $OUT/call2-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call2-in_graph.json
grep -v "^floor" $OUT/call2-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
