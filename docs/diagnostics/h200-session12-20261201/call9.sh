python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site
D=docs/diagnostics/h200-session12-20261201
timeout 150 python3 -m pytest -q tests/gpu/test_gpu_cuda_template.py -k "not first_launch" > $OUT/gpu_tests.log 2>&1; tail -3 $OUT/gpu_tests.log | cut -c1-400
timeout 90 python3 scripts/device/time_cuda_genomes.py $D/call9-variants.json --repeats 1 --timeout-s 40 --old .scratch/before_refactor.cu.j2 --json $OUT/cuda_compare.json > $OUT/timing.log 2>&1
grep " ok \|fail\|error\|Error\|timeout" $OUT/timing.log | sed 's/_ctx/@/g' | cut -c1-330
