# call 4: every GPU test of the repository on main as this session leaves it (7e90c3b: the
# template's two new scorer genes, four new siblings' test genomes).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
timeout 560 python3 -m pytest -q tests/gpu > $OUT/call4-gpu_tests.log 2>&1; tail -5 $OUT/call4-gpu_tests.log
