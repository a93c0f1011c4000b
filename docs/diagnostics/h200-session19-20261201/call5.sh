# call 5: the queries are on the start's critical path (call 4). Their copy engine reads the
# tensor map (a kernel parameter, different every call) on first use; a `prefetch.tensormap` at
# the kernel's first instruction (before the PDL wait: the map is a parameter, not a prior
# kernel's output) would fetch it while the CTA initializes its barriers and waits. Probe (edit
# in variants5.json; SASS: UTMACCTL.PF at the top): `sib` and the probe, each twice, 16 calls in
# a graph at ctx 128K.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session19-20261201
timeout 300 python3 scripts/device/time_in_graph.py $D/variants5.json --batches 1,2,4,5,8 > $OUT/call5-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call5-in_graph.json
grep -v "^floor" $OUT/call5-in_graph.log
