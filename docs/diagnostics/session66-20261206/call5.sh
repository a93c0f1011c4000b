#!/usr/bin/env bash
# Sixty-sixth session, any card: the siblings' wait polled with relaxed loads and one acquire fence
# once all have arrived (an edit of the rendered source, variants_polls.json) against the bars'
# small-batch genomes as they are, interleaved four times, 16 calls in a graph, B=4-8.
# From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session66-20261206/call5.sh
bash scripts/device/in_graph_call.sh 5 docs/diagnostics/session66-20261206/variants_polls.json 4,5,6,7,8
