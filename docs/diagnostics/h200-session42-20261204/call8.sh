# call 8: knockouts of the FP8 value threads' wait for their own copies (no wait: the thread
# converts, or not, whatever has landed, and arrives), beside call 7's knockout, on the FP8
# small-batch genome, 16 calls in a graph at B=1, 4, 8 and 64 (wrong values), on main's text
# (the kernels of 198bba9).
bash scripts/device/in_graph_call.sh 8 docs/diagnostics/h200-session42-20261204/variants8.json 1,4,8,64
