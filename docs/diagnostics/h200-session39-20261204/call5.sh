# call 5: every GPU test of the repository on main's final text (the template unchanged since
# 24ea902, whose review mends had been checked on the GPU only through the FP8 and adaptive tests).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
T0=$(date +%s)
git log -1 --format='commit %H' > $OUT/call5-gpu_tests.log 2>/dev/null
timeout 580 python3 -m pytest -q -p no:cacheprovider tests/gpu >> $OUT/call5-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s" | tee $OUT/call5-machine.txt
tail -5 $OUT/call5-gpu_tests.log
