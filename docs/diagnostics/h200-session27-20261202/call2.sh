# call 2: the same-call table for issue 4's point 5 on main's template: the Triton template's best
# genomes of its archived sweep (time_triton_best.py), then in one worker, twice each: the PyTorch
# reference path, the CUDA run's best genomes per workload (docs/runs/h200-cuda11-20261202), the
# small-batch genome, two FP8 genomes and the Gluon template's three (time_cuda_genomes.py --reference).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session27-20261202
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/call2-machine.txt
T0=$(date +%s)
timeout 120 python3 scripts/device/time_triton_best.py 0 > $OUT/call2-triton_best.log 2>&1
echo "triton rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call2-machine.txt
mv $OUT/triton_best.json $OUT/call2-triton_best.json
timeout $(( 570 - ($(date +%s) - T0) )) python3 scripts/device/time_cuda_genomes.py $D/variants2.json --repeats 2 --reference --timeout-s 90 --json call2-same_call.json > $OUT/call2-same_call.log 2>&1
echo "same_call rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call2-machine.txt
cat $OUT/call2-machine.txt
cut -c1-260 $OUT/call2-triton_best.log | tail -8
cut -c1-400 $OUT/call2-same_call.log | grep -v "^\s*$" | tail -24
