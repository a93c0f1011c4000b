#!/usr/bin/env bash
# Forty-ninth session, call 5 (prepared, not run): the siblings' arrival released by each value
# warp for its own partial stores (lane 0's red.release after a warp barrier, 8 arrivals a CTA, no
# CTA barrier before them), instead of a barrier over the CTA's 256 (or 384) threads and thread 0's
# one release, which waits for every store of the CTA. The fortieth session's knockouts put that
# release at about 0.45 us of B=8's tail; bf16 B=8 misses the bar by 0.3 us. A second variant
# (added in the fiftieth session) also has each warp's lane 0 poll for itself, with no CTA barrier
# after the poll either: every polling warp takes a departure ticket, and the last of them (8 a
# CTA, 12 where the scorer's warps merge too) re-arms the words. On the bf16 and FP8
# small-batch genomes, each beside itself (variants5.json; edits of the rendered source, correct by
# design: the harness checks every timed output). Run from the repository root, carrying .whl:
#   bash docs/diagnostics/h200-session49-20261205/call5.sh
bash scripts/device/in_graph_call.sh 5 docs/diagnostics/h200-session49-20261205/variants5.json 1,2,4,5,6,7,8,64
