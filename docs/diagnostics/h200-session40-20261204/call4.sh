# call 4: the GPU tests of i8 partials (the siblings' merge at every split count the launcher
# makes, with invalid slots, empty splits and a token without keys, eagerly and re-armed; the
# template's GPU tests on the i8 genomes) and the tests whose names say i8.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
T0=$(date +%s)
git log -1 --format='commit %H' > $OUT/call4-gpu_tests.log 2>/dev/null
git status --short >> $OUT/call4-gpu_tests.log 2>/dev/null
timeout 500 python3 -m pytest -q -p no:cacheprovider tests/gpu -k "i8" >> $OUT/call4-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s" | tee $OUT/call4-machine.txt
tail -8 $OUT/call4-gpu_tests.log
