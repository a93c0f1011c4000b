#!/usr/bin/env bash
# Forty-eighth session: where FP8-656 loses 3.2 us to bf16 at B=8 once nothing is converted
# (call 3 of this session: 18.47 against 15.28). Knockouts of the FP8 small-batch genome (wrong by
# design, marked): its rows read from 128-byte-aligned starts (a 656-byte row starts 16 bytes
# past a line in 7 rows of 8, so each of its 128-byte copies spans two lines), nothing converted
# with and without that, nothing converted with bf16's splits and pairing; and the bf16 genome
# with the FP8 genome's splits and pairing. Run from the repository root, carrying .whl:
#   bash docs/diagnostics/h200-session48-20261205/call5.sh
bash scripts/device/in_graph_call.sh 5 docs/diagnostics/h200-session48-20261205/variants2.json 1,4,5,8,64
