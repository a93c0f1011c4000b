# call 1: bounds on the scorer's softmax (knockout_free_softmax.py: wrong results by design, timing
# only): the softmax skipped, with the pair's scores as two m64n32 (as now) or one m64n64 (the
# twenty-sixth session's knockout), beside the best small-batch genome, 16 calls in a graph.
D=docs/diagnostics/h200-session33-20261203
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call1-machine.txt 2>&1
python3 $D/knockout_free_softmax.py || exit 1
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants1.json > $OUT/call1-prebuild.log 2>&1; tail -7 $OUT/call1-prebuild.log
grep -l "C75" results/in_graph/cubins/*/ptxas.log; grep -h "spill" results/in_graph/cubins/*/ptxas.log | sort | uniq -c
timeout 330 python3 scripts/device/time_in_graph.py $D/variants1.json --batches 1,4,6,7,8,64 > $OUT/call1-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call1-in_graph.json
grep -v "^floor" $OUT/call1-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
git checkout -q templates/sparse_mla.cu.j2 genomes/sparse_mla_cuda.toml
