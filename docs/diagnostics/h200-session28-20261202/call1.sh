# call 1: the check the twenty-seventh session could not run (its call4.sh): time_cuda_genomes.py
# --reference in its final form (the reference row recorded by the same helper as the variants'
# rows, timed before them each repeat), with the best small-batch genome, two repeats.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call1-machine.txt 2>&1
python3 -c "import torch, triton; print(torch.__version__, triton.__version__)" >> $OUT/call1-machine.txt 2>&1
cp docs/diagnostics/h200-session28-20261202/variants1.json /tmp/v1.json
timeout 400 python3 scripts/device/time_cuda_genomes.py /tmp/v1.json --repeats 2 --reference --json call1-same_call.json > $OUT/call1-same_call.log 2>&1; echo rc $?
cut -c1-300 $OUT/call1-same_call.log | tail -40
