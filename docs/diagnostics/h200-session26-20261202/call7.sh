# call 7: a bound on scoring each pair of 32-row tiles as one m64n64 product (knockout_pair.py:
# the scores read the wrong rows, so the checks fail by design; timing only), beside the same
# genomes as they are, at B=5-8 and 64.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session26-20261202
python3 $D/knockout_pair.py
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants7.json
grep -l "C75" results/in_graph/cubins/*/ptxas.log; grep -h "spill" results/in_graph/cubins/*/ptxas.log | sort | uniq -c
timeout 300 python3 scripts/device/time_in_graph.py $D/variants7.json --batches 5,6,7,8,64 > $OUT/call7-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call7-in_graph.json
grep -v "^floor" $OUT/call7-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-150
git checkout -q templates/sparse_mla.cu.j2 genomes/sparse_mla_cuda.toml
