# call 8: every GPU test of the repository on main as this session leaves it (a2981c7: the template
# as 9797672, whose review commit 94de60f was checked on the CPU only, by byte-identical renders).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
timeout 440 python3 -m pytest -q tests/gpu > $OUT/call8-gpu_tests.log 2>&1; tail -5 $OUT/call8-gpu_tests.log
