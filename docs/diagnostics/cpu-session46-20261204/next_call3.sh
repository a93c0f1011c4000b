#!/usr/bin/env bash
# Prepared for the next session with a device (none was lent in the forty-fifth or forty-sixth):
# is FP8-656's scorer held to the value threads' conversion? Knockouts of the FP8 small-batch
# genome (wrong by design, marked): the tile's full barrier completed by the copies alone (as
# bf16's is), with the conversion where it is (tile t + 3 in step t), a step before the tile's
# value products (t + 1: the timeline of a scorer that reads the raw rows), or not at all (no
# wait either: FP8's copies under bf16's protocol); beside the forty-third session's "copies
# waited for, nothing converted" and the bf16 genome, all in one call. Run from the repository
# root, carrying .whl:
#   bash docs/diagnostics/cpu-session46-20261204/next_call3.sh
bash scripts/device/in_graph_call.sh 3 docs/diagnostics/cpu-session46-20261204/next_variants3.json 1,4,5,8,64
