# call 9: every GPU test of the repository on d9b36cc (the merge share with a head a thread), then
# `sib` in a graph once more (16 calls, ctx 128K), B=8,4,2,1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
D=docs/diagnostics/h200-session16-20261201
timeout 420 python3 -m pytest -q tests/gpu > $OUT/call9-gpu_tests.log 2>&1; tail -3 $OUT/call9-gpu_tests.log
timeout 100 python3 scripts/device/time_in_graph.py $D/variants6g.json --batches 8,4,2,1 > $OUT/call9-in_graph.log 2>&1; tail -4 $OUT/call9-in_graph.log
mv $OUT/in_graph.json $OUT/call9-in_graph.json
