# call 1: SPLIT_STEP = tile (the scorer's splits of whole 32-row tiles: B=5 13 splits of 5 tiles
# instead of 11 of 6, B=3 22 of 3 instead of 16 of 4, B=1 64 of 1 instead of 32 of 2) against the
# pair step, with threads' and staged row stores; 16 calls in a graph at ctx 128K. First the
# siblings' merge GPU tests, which now include a tile-splits genome (every split count it makes).
# Template of calls 1-3: main (727a544) plus SPLIT_STEP, the merge on 256 threads; its code is the committed
# template with calls1-3-tile-splits-only.diff applied (`patch templates/sparse_mla.cu.j2 < calls1-3-tile-splits-only.diff`).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session22-20261202
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/call1-machine.txt
timeout 150 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants1.json
timeout 200 python3 -m pytest -q -x tests/gpu/test_gpu_siblings_merge.py > $OUT/call1-siblings_tests.log 2>&1; tail -4 $OUT/call1-siblings_tests.log
timeout 230 python3 scripts/device/time_in_graph.py $D/variants1.json --batches 1,2,3,4,5,6,8 > $OUT/call1-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call1-in_graph.json
grep -v "^floor" $OUT/call1-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-170
