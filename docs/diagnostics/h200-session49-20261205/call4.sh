#!/usr/bin/env bash
# Forty-ninth session, call 4 (prepared, not run: no machine was lent after call 3): where FP8-656's
# remaining cost over bf16 lies with the new copies (1789088). At B=8 call 1 left FP8 2.0 us over
# the bf16 genome with the same genes (17.95 against 15.91), of which the copies' bytes and count
# are about 0.4 (the forty-eighth session's call 7: 16.33 with FP8's copies of bf16 rows into
# bf16's places). Knockouts of the small-batch genome (variants4.json): without the conversion's
# three warp barriers (a race, wrong by design), with the copies waited for and nothing converted,
# and with nothing waited for or converted (the scorer waiting for the copies alone), beside the
# bf16 genome with its genes. Before 1789088 (the forty-sixth session's call 3) the wait took 0.3
# us of B=8 and the conversion 1.5. Run from the repository root, carrying .whl:
#   bash docs/diagnostics/h200-session49-20261205/call4.sh
bash scripts/device/in_graph_call.sh 4 docs/diagnostics/h200-session49-20261205/variants4.json 1,4,6,8,64
