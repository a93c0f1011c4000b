# call 1: the scorer's chains of tiles (SCORE_CHAIN 4 and 8: tile i + 2's scores issued right after
# tile i's softmax, two score sets alternating, one exposed softmax a chain instead of one a pair)
# beside sib and tile (SCORE_CHAIN 2, main's pairs' loop, byte-identical renders). The siblings'
# GPU tests (with the two chain genomes) first; a hang ends the call before the timing.
# Template, genes and GPU test genomes: call1-score-chain.diff (git apply, from ed3b249).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session24-20261202
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants1.json
grep -l "C75" results/in_graph/cubins/*/ptxas.log; grep -h "spill" results/in_graph/cubins/*/ptxas.log | sort | uniq -c
timeout 170 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py -k "chain" > $OUT/call1-tests.log 2>&1
rc=$?; tail -4 $OUT/call1-tests.log; [ $rc -eq 124 ] && { echo "tests hung"; exit 1; }
timeout 330 python3 scripts/device/time_in_graph.py $D/variants1.json --batches 1,2,3,4,5,6,7,8,64 > $OUT/call1-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call1-in_graph.json
grep -v "^floor" $OUT/call1-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
