# (to re-run: bash docs/diagnostics/h200-session37-20261203/rebuild_texts.sh here, then carry that folder)
# call 6: the FP8 conversion with the upper pair read without a shift and one bf16 product a pair
# (where every scale of the warp's rows allows it; the template's working text, one-product.cu.j2)
# under the FP8 GPU tests, then 16 calls in a graph against c584159b's text (and the no-shift
# change alone, an edit that forces the two products).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session37-20261203
T0=$(date +%s)
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants6.json > $OUT/call6-prebuild.log 2>&1; tail -1 $OUT/call6-prebuild.log
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py -k "fp8" > $OUT/call6-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s"; tail -1 $OUT/call6-gpu_tests.log
timeout 200 python3 scripts/device/time_in_graph.py $D/variants6.json --batches 1,2,4,5,6,7,8,64 > $OUT/call6-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s"
mv $OUT/in_graph.json $OUT/call6-in_graph.json
grep -v "^floor" $OUT/call6-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | sed 's/ us a call//; s/; checks all ok//; s/_ctx128k: 16 in a graph//' | cut -c1-150
