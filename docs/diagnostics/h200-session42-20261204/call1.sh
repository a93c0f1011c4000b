# call 1: the e4m3 dequantization with bit operations alone (PRMT, shift, mask; no cvt) against
# main's cvt path (templates/s42_base.cu.j2 = templates/sparse_mla.cu.j2 at 407ce51): FP8 GPU
# tests first, then 16 calls in a graph at B=1-8 and 64 (FP8 genomes, the scorer's genes swept on
# the new text), then B=128 (4 calls in a graph, ctx 128K).
D=docs/diagnostics/h200-session42-20261204
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
T0=$(date +%s)
timeout 240 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_fp8_dequant.py tests/gpu/test_gpu_cuda_template.py tests/gpu/test_gpu_siblings_merge.py -k "fp8" --durations=4 > $OUT/call1-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s"
tail -8 $OUT/call1-gpu_tests.log
bash scripts/device/in_graph_call.sh 1 $D/variants1.json 1,2,4,5,6,7,8,64
timeout 150 python3 scripts/device/time_in_graph.py $D/variants1-b128.json --batches 128 --calls 4 > $OUT/call1b-in_graph.log 2>&1
echo "b128 rc $? $(( $(date +%s) - T0 )) s"
mv $OUT/in_graph.json $OUT/call1b-in_graph.json
python3 scripts/in_graph_table.py $OUT/call1b-in_graph.json
