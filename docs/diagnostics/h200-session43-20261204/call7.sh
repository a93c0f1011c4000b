#!/usr/bin/env bash
# Call 7: ROW_SHARE = cluster (the two head blocks' CTAs of a token and split as a cluster, each
# gathering half of every tile's rows and copying it into the other's shared memory) against the
# bf16 small-batch genome; then the siblings' GPU test of the two shared-row genomes.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD:/tmp/site
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/call7-machine.txt 2>&1
timeout 240 python3 scripts/device/time_in_graph.py docs/diagnostics/h200-session43-20261204/variants7.json --batches 1,4,7,8,16,64 > $OUT/call7-in_graph.log 2>&1
echo "in_graph rc $?" >> $OUT/call7-machine.txt
mv $OUT/in_graph.json $OUT/call7-in_graph.json 2>/dev/null
cat $OUT/call7-machine.txt; grep -iE "error|fail|skipped" $OUT/call7-in_graph.log | cut -c1-400 | head -20
python3 scripts/in_graph_table.py $OUT/call7-in_graph.json
timeout 200 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py -k "row-share" > $OUT/call7-gpu_tests.log 2>&1
echo "gpu tests rc $?"; tail -15 $OUT/call7-gpu_tests.log | cut -c1-400
