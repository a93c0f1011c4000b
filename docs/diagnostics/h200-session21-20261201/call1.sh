# call 1: the scorer's softmax threaded between the next tile's score k-steps (the pairs' loop
# shifted by one tile: tile t's scores waited for before t + 1's are issued, so that no product is
# in flight across the loop's turn). interleaveN: a softmax stage after every N-th k-step;
# interleave0: the whole softmax after the next tile's k-steps are issued (no threading). `sib`
# twice around them, 16 calls in a graph at ctx 128K (edits in variants1.json); the split kernel's
# SASS of each variant.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session21-20261201
git log -1 --format='commit %H' > $OUT/call1-machine.txt 2>/dev/null; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $OUT/call1-machine.txt
mkdir -p $OUT/sass
timeout 200 python3 $D/prebuild.py $D/variants1.json --sass $OUT/sass
timeout 380 python3 scripts/device/time_in_graph.py $D/variants1.json --batches 1,4,5,6,8,64,128 > $OUT/call1-in_graph.log 2>&1
mv $OUT/in_graph.json $OUT/call1-in_graph.json
grep -v "^floor" $OUT/call1-in_graph.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-200
