# call 3: every GPU test of the repository on main as this session leaves it (the FIRST_GATHER fold,
# e244223; the last full run was the twenty-fourth session's, 97 passed; sessions 25-26 added
# genomes to the siblings' and cluster tests).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
git log -1 --format='commit %H' > $OUT/call3-gpu_tests.log 2>/dev/null
timeout 570 python3 -m pytest -q -p no:cacheprovider tests/gpu >> $OUT/call3-gpu_tests.log 2>&1; tail -5 $OUT/call3-gpu_tests.log
