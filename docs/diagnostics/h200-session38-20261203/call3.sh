# call 3: every GPU test of the repository on the template of aa88722 (the working tree).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
T0=$(date +%s)
git log -1 --format='commit %H' > $OUT/call3-gpu_tests.log 2>/dev/null
timeout 580 python3 -m pytest -q -p no:cacheprovider tests/gpu >> $OUT/call3-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s" | tee $OUT/call3-machine.txt
tail -5 $OUT/call3-gpu_tests.log
