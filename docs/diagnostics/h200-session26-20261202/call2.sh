# call 2: where the scorer's cluster merge loses (call 1: B=7 19.25 us against 15.96): knockouts
# of its pushes, its merge and its barriers (knockout.py, on this working tree; wrong results by design), at B=5 and 7.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=$PWD:/tmp/site
D=docs/diagnostics/h200-session26-20261202
cp templates/sparse_mla.cu.j2 /tmp/template.orig
for k in none no_push no_merge one_barrier no_barriers; do
  cp /tmp/template.orig templates/sparse_mla.cu.j2
  [ $k != none ] && python3 $D/knockout.py $k
  timeout 100 python3 docs/diagnostics/h200-session21-20261201/prebuild.py $D/variants2.json > /dev/null
  echo "== $k"
  timeout 100 python3 scripts/device/time_in_graph.py $D/variants2.json --batches 5,7 > $OUT/call2-$k.log 2>&1
  mv $OUT/in_graph.json $OUT/call2-$k.json
  grep -v "^floor" $OUT/call2-$k.log | sed 's/one call a graph.*16 in a graph/16 in a graph/' | cut -c1-150
done
cp /tmp/template.orig templates/sparse_mla.cu.j2
