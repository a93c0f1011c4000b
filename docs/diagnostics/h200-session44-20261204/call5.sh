#!/usr/bin/env bash
# Call 5: the lockstep's shared rows with plain remote stores (st.shared::cluster) and each producer
# thread's arrival on the peer's full barrier instead of st.async, and without any store to the
# peer (knockout), beside the lockstep with and without the gene (edits of the rendered source).
bash scripts/device/in_graph_call.sh 5 docs/diagnostics/h200-session44-20261204/variants5.json 1,4,8,64,128
