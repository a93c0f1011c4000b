# call 4: issue 4's same-call table (point 5) on the template as it stands: the Triton template's
# best genomes of its archived sweep (time_triton_best.py), then in one worker, twice each: the
# PyTorch reference path, call 3's run's best CUDA genomes (bf16 and FP8-656), the bf16 and FP8
# small-batch genomes of the bars, and the Gluon template's three genomes (time_cuda_genomes.py
# --reference). The harness's method: one call a graph, 30 replays, every output checked.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session42-20261204
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call4-machine.txt 2>&1
T0=$(date +%s)
timeout 120 python3 scripts/device/time_triton_best.py 0 > $OUT/call4-triton_best.log 2>&1
echo "triton rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call4-machine.txt
mv $OUT/triton_best.json $OUT/call4-triton_best.json
timeout $(( 570 - ($(date +%s) - T0) )) python3 scripts/device/time_cuda_genomes.py $D/variants4.json --repeats 2 --reference --timeout-s 90 --json call4-same_call.json > $OUT/call4-same_call.log 2>&1
echo "same_call rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call4-machine.txt
cat $OUT/call4-machine.txt
cut -c1-260 $OUT/call4-triton_best.log | tail -8
cut -c1-300 $OUT/call4-same_call.log | grep -v "^\s*$" | tail -30
