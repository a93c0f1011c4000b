# call 12: the rest of the GPU tests (every file call 10 did not run), on main's text.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
T0=$(date +%s)
git log -1 --format='commit %H' > $OUT/call12-gpu_tests.log 2>/dev/null
timeout 330 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_cluster_merge.py tests/gpu/test_gpu_compile_ahead.py tests/gpu/test_gpu_graph_timer.py tests/gpu/test_gpu_guards.py tests/gpu/test_gpu_tensor_map.py tests/gpu/test_h200_eval.py tests/gpu/test_gpu_gluon_template.py --durations=5 >> $OUT/call12-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s" | tee $OUT/call12-machine.txt
tail -10 $OUT/call12-gpu_tests.log
