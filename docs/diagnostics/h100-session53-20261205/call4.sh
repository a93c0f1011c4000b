#!/usr/bin/env bash
# Fifty-third session, call 4: where FP8-656's conversion cost lies now that its raw loads have no
# bank conflicts (call 1: removing a third of their wavefronts changed no small batch). Knockouts
# of the FP8 small-batch genome, each one part of `convert` taken out (wrong by design, marked):
# the async-proxy fence after the stores; the arithmetic (each raw word stored as it is); the
# raw loads (the words made from addresses); the stores (loads only: the arithmetic then goes
# too); the loads and the arithmetic (stores only). On any card: each row is compared within
# the call. Run from the repository root, carrying .whl:
#   bash docs/diagnostics/h100-session53-20261205/call4.sh
bash scripts/device/in_graph_call.sh 4 docs/diagnostics/h100-session53-20261205/variants4.json 1,4,6,8,64
