# call 3: the lean softmax in the template (working tree) against the template at 20ff46f: the best
# small-batch genome in a graph (16 calls at ctx 128K); issue 4's bar genomes side by side with both
# templates and the PyTorch reference path in one worker, twice each (time_cuda_genomes.py --old
# --reference); then every GPU test of the repository on the working tree, in the time left.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session33-20261203
git show 20ff46f:templates/sparse_mla.cu.j2 > $D/main.cu.j2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call3-machine.txt 2>&1
T0=$(date +%s)
timeout 100 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants3-in_graph.json > $OUT/call3-prebuild.log 2>&1
timeout 120 python3 scripts/device/time_in_graph.py $D/variants3-in_graph.json --batches 1,2,3,4,5,6,7,8,64 > $OUT/call3-in_graph.log 2>&1
echo "in_graph rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call3-machine.txt
mv $OUT/in_graph.json $OUT/call3-in_graph.json
timeout 240 python3 scripts/device/time_cuda_genomes.py $D/variants3-same_call.json --old $D/main.cu.j2 --repeats 2 --reference --timeout-s 90 --json call3-same_call.json > $OUT/call3-same_call.log 2>&1
echo "same_call rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call3-machine.txt
git log -1 --format='commit %H (working tree: the lean softmax)' > $OUT/call3-gpu_tests.log 2>/dev/null
timeout $(( 575 - ($(date +%s) - T0) )) python3 -m pytest -q -p no:cacheprovider tests/gpu >> $OUT/call3-gpu_tests.log 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - T0 )) s" >> $OUT/call3-machine.txt
cat $OUT/call3-machine.txt
grep -v "^floor" $OUT/call3-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-150
cut -c1-300 $OUT/call3-same_call.log | grep -v "^\s*$" | tail -30
tail -5 $OUT/call3-gpu_tests.log
