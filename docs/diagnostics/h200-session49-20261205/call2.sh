#!/usr/bin/env bash
# Forty-ninth session, call 2: the FP8-656 scorer's genes swept again on the new copies (1789088):
# every SPLIT_STEP x VALUE_ISSUE x PAIRING x FIRST_GATHER with i8 partials and PDL
# (variants2.json; the small-batch genome, "fp8 i8 tile at_p adaptive pair_first", timed twice),
# at B=5-8 (B=5 met, B=6-8 missed in call 1) and B=64. Run from the repository root, carrying .whl:
#   bash docs/diagnostics/h200-session49-20261205/call2.sh
bash scripts/device/in_graph_call.sh 2 docs/diagnostics/h200-session49-20261205/variants2.json 5,6,7,8,64
