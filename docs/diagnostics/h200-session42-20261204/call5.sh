# call 5: the GPU tests that calls 1-2 did not run (tests/gpu, all but the FP8 ones) on main's final
# text (198bba9; bf16 genomes' machine code is the same as 407ce51's, checked locally by the
# cubins' .text sections).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
T0=$(date +%s)
timeout 560 python3 -m pytest -q -p no:cacheprovider tests/gpu -k "not fp8" --durations=5 > $OUT/call5-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s" | tee $OUT/call5-machine.txt
tail -12 $OUT/call5-gpu_tests.log
