# call 7: scripts/device/in_graph_call.sh itself (time_in_graph.py compiling every variant at once;
# a variant broken on purpose must be skipped with its compiler error), main's text and the helper.
bash scripts/device/in_graph_call.sh 7 docs/diagnostics/h200-session41-20261204/variants7.json 7,8
grep -A3 "compile failed" $OUT/call7-in_graph.log | cut -c1-300 | head -8
