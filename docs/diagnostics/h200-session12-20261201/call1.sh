python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site
D=docs/diagnostics/h200-session12-20261201
timeout 150 python3 -m pytest -q tests/gpu/test_gpu_cuda_template.py -k "scorer or pingpong-q-tma-groups3-pdl" > $OUT/gpu_tests.log 2>&1; tail -15 $OUT/gpu_tests.log | cut -c1-400
timeout 200 python3 scripts/device/time_cuda_genomes.py $D/call1-variants.json --repeats 2 --timeout-s 60 --json $OUT/cuda_compare.json > $OUT/timing.log 2>&1
grep " ok \|fail\|error\|Error" $OUT/timing.log | sed 's/_ctx/@/g' | cut -c1-330
timeout 90 python3 scripts/device/time_in_graph.py $D/call1-variants.json --batches 1,8 --context 131072 > $OUT/in_graph.log 2>&1; tail -12 $OUT/in_graph.log | cut -c1-300
