# call 10: knockouts of the first rows' memory traffic (wrong by design): every CTA gathers token 0's
# first 64 (or 128) listed rows for its first pair (or four tiles), which after the first CTA are L2 hits;
# how much of the call the first pair's 9.4 MB from memory at once costs. Pair i8, main's text.
bash scripts/device/in_graph_call.sh 10 docs/diagnostics/h200-session41-20261204/variants10.json 4,7,8
