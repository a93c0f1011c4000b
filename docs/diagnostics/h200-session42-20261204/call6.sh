# call 6: the one FP8 GPU test neither call 1-2 (-k fp8 in three files) nor call 5 (-k "not fp8")
# ran: the cluster merge on FP8-656 rows, on main's final text (198bba9).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
T0=$(date +%s)
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_cluster_merge.py -k fp8 > $OUT/call6-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s" | tee $OUT/call6-machine.txt
tail -3 $OUT/call6-gpu_tests.log
