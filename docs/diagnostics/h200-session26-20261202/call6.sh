# call 6: the evolve run's B=128 best (56370b15: scorer, siblings, staged rows, held second tile,
# first pair gathered alone; 501-504 TFLOP/s in the run) beside the eighteenth session's run best
# (027a7a50, 486-489 then) and the two new genes apart, side by side in one worker, twice, one
# call a graph (the method), every workload of the problem.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session26-20261202
timeout 500 python3 scripts/device/time_cuda_genomes.py $D/variants6.json --repeats 2 --json call6-genomes.json > $OUT/call6-genomes.log 2>&1
echo "rc=$?"; tail -40 $OUT/call6-genomes.log | cut -c1-200
