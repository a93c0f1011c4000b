# call 2: the siblings' merge on release/acquire words, a line a group; knockouts of its wait and its merge
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 150 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py > $OUT/siblings_tests.log 2>&1; echo "rc $?"; tail -3 $OUT/siblings_tests.log
timeout 200 python3 scripts/device/time_in_graph.py docs/diagnostics/h200-session14-20261201/call2-variants.json --batches 8,1 2>&1 | grep -v "^floor"; cp $OUT/in_graph.json $OUT/call2-in_graph.json 2>/dev/null
