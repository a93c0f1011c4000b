# call 6: the pairs' row exchange in 8-byte remote stores (v2; call 5's were 4-byte, .scratch/s15/pairs_b32.cu.j2 =
# HEAD's template with call5-template.diff), and without the exchange (outputs wrong by design), beside siblings
mkdir -p .scratch/s15 && git show ce88cdb:templates/sparse_mla.cu.j2 > .scratch/s15/pairs_b32.cu.j2 && patch -s .scratch/s15/pairs_b32.cu.j2 < docs/diagnostics/h200-session15-20261201/call5-template.diff  # the working tree had call6-pairs.diff applied
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 150 python3 scripts/device/time_in_graph.py docs/diagnostics/h200-session15-20261201/variants9.json --batches 8,1 2>&1 | grep -v "^floor"; mv $OUT/in_graph.json $OUT/call6-in_graph.json
