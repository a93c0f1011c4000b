# call 7: where the pairs' merge loses: with and without the cooperative attribute (call2-in_graph_coop.py honours a
# '// no-coop' marker), without its row exchange (wrong by design), without PDL; beside siblings with and without it
# (the working tree: ce88cdb's templates, evaluators, genomes and tests with call6-pairs.diff applied)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null; export PYTHONPATH=/tmp/site
timeout 150 python3 docs/diagnostics/h200-session15-20261201/call2-in_graph_coop.py docs/diagnostics/h200-session15-20261201/variants10.json --batches 8,1 2>&1 | grep -v "^floor"; mv $OUT/in_graph.json $OUT/call7-in_graph.json
