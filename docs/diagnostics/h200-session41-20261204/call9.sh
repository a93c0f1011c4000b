# call 9: knockouts of the queries' copy at the call's start (1 or 5 of the 9 boxes of 64 columns; wrong
# by design): how much the 9.4 MB of queries that 128 CTAs copy at once (8 splits read each block)
# delay the first rows; pair i8, main's text.
bash scripts/device/in_graph_call.sh 9 docs/diagnostics/h200-session41-20261204/variants9.json 4,7,8
