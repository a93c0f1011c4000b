# call 6: issue 4's bars on main (290d19f, the template unchanged this session): one call a graph (the
# method, every workload) for the bf16 `s staged` and the FP8 `g`; in a graph (16 calls, ctx 128K) `sib`
# at B=8, 4, 2, 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
D=docs/diagnostics/h200-session16-20261201
timeout 150 python3 scripts/device/time_in_graph.py $D/variants6g.json --batches 8,4,2,1 > $OUT/call6-in_graph.log 2>&1; tail -4 $OUT/call6-in_graph.log
mv $OUT/in_graph.json $OUT/call6-in_graph.json
timeout 300 python3 scripts/device/time_cuda_genomes.py $D/variants6.json --repeats 1 --timeout-s 60 --json call6-cuda_compare.json > $OUT/call6-cuda_compare.log 2>&1; tail -12 $OUT/call6-cuda_compare.log
