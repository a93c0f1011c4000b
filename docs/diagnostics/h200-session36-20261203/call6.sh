# (to re-run: bash docs/diagnostics/h200-session36-20261203/rebuild_texts.sh here, then carry predicated-stores.cu.j2, git-ignored)
# call 6: the FP8 scorer's dequantization with its two stores' halves picked by predicated stores
# (no selects) against the kept text, and knockouts with its arithmetic replaced by a mask (finite
# garbage: wrong results, timing only) in both forms; FP8 `g` beside; the FP8 GPU tests on the
# predicated-stores text first (predicated-stores.cu.j2, the same SASS as the edit variant).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session36-20261203
T0=$(date +%s)
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants6.json > $OUT/call6-prebuild.log 2>&1; tail -2 $OUT/call6-prebuild.log
cp templates/sparse_mla.cu.j2 /tmp/template.keep; cp $D/predicated-stores.cu.j2 templates/sparse_mla.cu.j2
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py -k "fp8" > $OUT/call6-gpu_tests.log 2>&1
echo "gpu_tests (predicated stores) rc $? $(( $(date +%s) - T0 )) s"; tail -1 $OUT/call6-gpu_tests.log
cp /tmp/template.keep templates/sparse_mla.cu.j2
timeout 200 python3 scripts/device/time_in_graph.py $D/variants6.json --batches 1,2,4,5,6,7,8,64 > $OUT/call6-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s"
mv $OUT/in_graph.json $OUT/call6-in_graph.json
grep -v "^floor" $OUT/call6-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | sed 's/ us a call//; s/; checks all ok//' | cut -c1-120
