# call 8: every combination of the scorer's four genes (SPLIT_STEP, VALUE_ISSUE, PAIRING, FIRST_GATHER)
# on FP8-656 rows with i8 partials, 16 calls in a graph at B=5-8, main's text; the current FP8 small-batch
# genome (tile at_p adaptive pair_first) timed twice.
bash scripts/device/in_graph_call.sh 8 docs/diagnostics/h200-session41-20261204/variants8.json 5,6,7,8
