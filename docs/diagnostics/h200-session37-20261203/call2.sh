# (to re-run: bash docs/diagnostics/h200-session37-20261203/rebuild_texts.sh here, then carry that folder)
# call 2: the template's new text (the FP8 scorer's raw words loaded in their place's order, no
# selects, no spill; the mend; the PAIRING gene) under the scorer's and FP8's GPU tests, then 16
# calls in a graph: main's text against the new one, FP8 with fixed and adaptive pairs.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session37-20261203
T0=$(date +%s)
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants2.json > $OUT/call2-prebuild.log 2>&1; tail -2 $OUT/call2-prebuild.log
timeout 260 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py -k "fp8 or scorer" > $OUT/call2-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s"; tail -1 $OUT/call2-gpu_tests.log
timeout 250 python3 scripts/device/time_in_graph.py $D/variants2.json --batches 1,2,4,5,6,7,8,64 > $OUT/call2-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s"
mv $OUT/in_graph.json $OUT/call2-in_graph.json
grep -v "^floor" $OUT/call2-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | sed 's/ us a call//; s/; checks all ok//' | cut -c1-150
