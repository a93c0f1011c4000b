# call 2: main's text (360fc54: every FP8 path converts with PRMT, shift and mask): the FP8 GPU
# tests; then two knockouts of the conversion (one bf16 product, exact only for scales up to 2^7;
# no conversion at all, wrong values) on the small-batch and B=128 FP8 genomes, 16 calls in a
# graph at B=1-8 and 64, then 4 calls in a graph at B=128 (ctx 128K).
D=docs/diagnostics/h200-session42-20261204
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
T0=$(date +%s)
timeout 240 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_fp8_dequant.py tests/gpu/test_gpu_cuda_template.py tests/gpu/test_gpu_siblings_merge.py -k "fp8" --durations=4 > $OUT/call2-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s"
tail -3 $OUT/call2-gpu_tests.log
bash scripts/device/in_graph_call.sh 2 $D/variants2.json 1,4,5,6,7,8,64
timeout 150 python3 scripts/device/time_in_graph.py $D/variants2-b128.json --batches 128 --calls 4 > $OUT/call2b-in_graph.log 2>&1
echo "b128 rc $? $(( $(date +%s) - T0 )) s"
mv $OUT/in_graph.json $OUT/call2b-in_graph.json
python3 scripts/in_graph_table.py $OUT/call2b-in_graph.json
