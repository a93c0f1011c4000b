# call 11: the review's change to time_in_graph.py (its compiles as many at once as the machine has cores),
# call 7's variants (one broken on purpose) through the helper.
bash scripts/device/in_graph_call.sh 11 docs/diagnostics/h200-session41-20261204/variants7.json 7,8
grep -c "this_does_not_compile" $OUT/call11-in_graph.log
