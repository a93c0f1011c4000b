python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site
timeout 200 python3 -m pytest -q tests/gpu/test_gpu_cuda_template.py > $OUT/gpu_tests.log 2>&1; tail -2 $OUT/gpu_tests.log
timeout 170 python3 scripts/device/time_cuda_genomes.py .scratch/review_variants.json --repeats 1 --timeout-s 60 --old .scratch/old.cu.j2 > $OUT/timing.log 2>&1
grep " ok \|fail\|error" $OUT/timing.log | sed 's/_ctx/@/g' | cut -c1-330
timeout 60 python3 scripts/device/l2_state.py .scratch/review_one.json --batches 8 --context 32768 > $OUT/l2.log 2>&1; tail -5 $OUT/l2.log | cut -c1-300
timeout 60 python3 scripts/device/trace_seesaw.py .scratch/review_one.json --batches 8 > $OUT/trace.log 2>&1; tail -4 $OUT/trace.log | cut -c1-400
