# (to re-run: bash docs/diagnostics/h200-session36-20261203/rebuild_texts.sh here, then carry that folder)
# call 4: the template's final candidates for the FP8 scorer's dequantization: copies first (call
# 1's order) with two chunks' loads ahead of their conversion and the scales in one load (the
# template's text now; 8 bytes of spill), and the same with each chunk's scale loaded beside it
# (lean-scale-per-chunk.cu.j2, no spill); against main's order, copies first alone, bf16 and
# FP8 `g`; the FP8 GPU tests on both texts first.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session36-20261203
T0=$(date +%s)
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants4.json > $OUT/call4-prebuild.log 2>&1; tail -2 $OUT/call4-prebuild.log
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py -k "fp8" > $OUT/call4-gpu_tests.log 2>&1
echo "gpu_tests (template) rc $? $(( $(date +%s) - T0 )) s"; tail -1 $OUT/call4-gpu_tests.log
cp templates/sparse_mla.cu.j2 /tmp/template.keep; cp $D/lean-scale-per-chunk.cu.j2 templates/sparse_mla.cu.j2
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py -k "fp8" > $OUT/call4-gpu_tests-scale-per-chunk.log 2>&1
echo "gpu_tests (scale per chunk) rc $? $(( $(date +%s) - T0 )) s"; tail -1 $OUT/call4-gpu_tests-scale-per-chunk.log
cp /tmp/template.keep templates/sparse_mla.cu.j2
timeout 200 python3 scripts/device/time_in_graph.py $D/variants4.json --batches 1,2,4,5,6,7,8,64 > $OUT/call4-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s"
mv $OUT/in_graph.json $OUT/call4-in_graph.json
grep -v "^floor" $OUT/call4-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | sed 's/ us a call//; s/; checks all ok//' | cut -c1-120
