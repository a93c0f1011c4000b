#!/usr/bin/env bash
# Forty-eighth session, call 7: what in FP8-656's copy pattern costs 2.5 us of B=8 (call 6: the
# bf16 genome copying FP8's six chunks a thread a row from the bf16 cache, valid values, fewer
# bytes, 18.44 us against 15.96). Knockouts of that copy pattern (variants7.json): from
# 128-byte-aligned row starts (a 656-byte row starts 16 bytes past a line in 7 rows of 8), without
# the scales' copy (eight threads a row copy the same 16 bytes), into bf16's places (a row's copies
# in one block an instruction), bf16's own nine line copies a thread a row at the 656-byte stride
# (misaligned full rows), and bf16's first four line copies and its RoPE line alone (aligned, 640
# bytes a row, bf16's stride). Run from the repository root, carrying .whl:
#   bash docs/diagnostics/h200-session48-20261205/call7.sh
bash scripts/device/in_graph_call.sh 7 docs/diagnostics/h200-session48-20261205/variants7.json 1,4,8,64
