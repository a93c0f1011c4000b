# call 7: every GPU test of the repository on main as this session leaves its kernels (b52b92f's
# template, comments since).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
T0=$(date +%s)
timeout 450 python3 -m pytest -q -p no:cacheprovider tests/gpu > $OUT/call7-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s"; tail -5 $OUT/call7-gpu_tests.log
