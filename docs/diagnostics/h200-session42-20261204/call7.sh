# call 7: a knockout of the FP8 value threads' shared-memory stage (each thread still waits for its
# own copies and arrives on the tile's barrier, but neither reads, converts nor stores the values:
# wrong values) on the FP8 small-batch genome, 16 calls in a graph at B=1, 4, 8 and 64, on main's
# final text (b4131e8; the kernels of 198bba9).
bash scripts/device/in_graph_call.sh 7 docs/diagnostics/h200-session42-20261204/variants7.json 1,4,8,64
