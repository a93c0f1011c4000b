# (to re-run: bash docs/diagnostics/h200-session36-20261203/rebuild_texts.sh here, then carry gather-free.cu.j2, git-ignored)
# call 5: bf16 scorer with GATHER_AT = free (gather-free.cu.j2: tile t + 5 copied into tile t's
# buffer at the end of step t, once both value warpgroups are done with it; held tiles: the pairs'
# first tiles only), the held and at_p small-batch genomes against main's text; the bf16 scorer
# GPU tests (siblings' merge, graph replay) on the new text first.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session36-20261203
T0=$(date +%s)
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants5.json > $OUT/call5-prebuild.log 2>&1; tail -2 $OUT/call5-prebuild.log
cp templates/sparse_mla.cu.j2 /tmp/template.keep; cp $D/gather-free.cu.j2 templates/sparse_mla.cu.j2
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py -k "scorer and not fp8" > $OUT/call5-gpu_tests.log 2>&1
echo "gpu_tests (gather-free) rc $? $(( $(date +%s) - T0 )) s"; tail -1 $OUT/call5-gpu_tests.log
cp /tmp/template.keep templates/sparse_mla.cu.j2
timeout 200 python3 scripts/device/time_in_graph.py $D/variants5.json --batches 1,2,4,5,6,7,8,64 > $OUT/call5-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s"
mv $OUT/in_graph.json $OUT/call5-in_graph.json
grep -v "^floor" $OUT/call5-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | sed 's/ us a call//; s/; checks all ok//' | cut -c1-120
