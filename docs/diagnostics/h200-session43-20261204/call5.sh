#!/usr/bin/env bash
# Call 5: the bf16 small-batch genome's scorer taking pairs two at a time (quads: the third and
# fourth tiles' scores issued under the first and second tiles' softmaxes), and the whole split of
# four pairs as straight-line code (852 B of spill), as edits of the rendered source.
bash scripts/device/in_graph_call.sh 5 docs/diagnostics/h200-session43-20261204/variants5.json 1,2,4,5,6,7,8,16,64
