# call 2: the GPU guards' tests with the fixture's checked-call count derived from the device's
# verification shapes (190a7ba), then `sib` on main's template (unchanged since e841fcf) in a graph
# at every batch from 1 to 8 (ctx 128K, 16 calls a graph): the small-batch bar as main stands.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session19-20261201
git log -1 --format='commit %H' > $OUT/call2-machine.txt 2>/dev/null
timeout 200 python3 -m pytest -q tests/gpu/test_gpu_guards.py > $OUT/call2-tests.log 2>&1
tail -2 $OUT/call2-tests.log
timeout 330 python3 scripts/device/time_in_graph.py $D/variants2.json --batches 1,2,3,4,5,6,7,8 > $OUT/call2-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call2-in_graph.json
cat $OUT/call2-in_graph.log
