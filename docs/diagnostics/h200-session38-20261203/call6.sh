# call 6: after the review's mends (one helper for the 2^112-then-scale products; one template
# branch for adaptive pairs; the same SASS for five FP8 and bf16 genomes, checked locally), the GPU
# tests of FP8 genomes and of adaptive pairs.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
T0=$(date +%s)
timeout 330 python3 -m pytest -q -p no:cacheprovider tests/gpu -k "fp8 or adaptive" > $OUT/call6-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s" | tee $OUT/call6-machine.txt
tail -3 $OUT/call6-gpu_tests.log
