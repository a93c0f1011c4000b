# call 4: two scoring warpgroups taking turns over the tiles (SCORERS = 2, the working tree's
# template), beside the best small-batch genome and the one scorer with the same VALUE_ISSUE (at_p),
# 16 calls in a graph; a smoke run of the two-scorer genomes' checks first, the siblings' GPU test of
# the two-scorer genome last (every split count, invalid slots, empty splits, graphs).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session33-20261203
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants4.json > $OUT/call4-prebuild.log 2>&1; tail -5 $OUT/call4-prebuild.log
grep -l "C75" results/in_graph/cubins/*/ptxas.log; grep -h "spill" results/in_graph/cubins/*/ptxas.log | sort | uniq -c
timeout 90 python3 scripts/device/time_in_graph.py $D/variants4-smoke.json --batches 1,2,5,8 --calls 2 > $OUT/call4-smoke.log 2>&1 || { echo "smoke failed rc=$?"; tail -20 $OUT/call4-smoke.log; exit 1; }
grep -v "^floor" $OUT/call4-smoke.log | cut -c1-220
grep " us a call" $OUT/call4-smoke.log | grep -qv "checks all ok" && exit 1
timeout 300 python3 scripts/device/time_in_graph.py $D/variants4.json --batches 1,2,4,5,6,7,8,64 > $OUT/call4-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call4-in_graph.json
grep -v "^floor" $OUT/call4-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_siblings_merge.py -k two > $OUT/call4-tests.log 2>&1; tail -3 $OUT/call4-tests.log
