# call 10: the GPU tests of the CUDA template that the scorer epilogue's and i8 partials' changes
# reach: the siblings' merge at every split count (all genomes, i8 among them), the template's
# GPU tests, the PDL chain and the FP8 dequantization, on main's text.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
T0=$(date +%s)
git log -1 --format='commit %H' > $OUT/call10-gpu_tests.log 2>/dev/null
git status --short >> $OUT/call10-gpu_tests.log 2>/dev/null
timeout 560 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py tests/gpu/test_gpu_cuda_template.py tests/gpu/test_gpu_pdl_chain.py tests/gpu/test_gpu_fp8_dequant.py --durations=8 >> $OUT/call10-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s" | tee $OUT/call10-machine.txt
tail -16 $OUT/call10-gpu_tests.log
