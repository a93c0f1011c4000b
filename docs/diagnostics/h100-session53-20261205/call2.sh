#!/usr/bin/env bash
# Fifty-third session, call 2 (prepared for a session that gets an H200; call 1 ran on an H100):
# call 1's in-graph timings again on the card the bars are set on. The FP8 genomes on main's text
# before the raw_swizzle change (variants1.json's edits: today's text with its four raw_swizzle
# lines as at 7a460dd; the code rendered identical to 7a460dd's but for comments) and on the template as it stands, each twice,
# beside bf16's "pair i8": whether FP8-656 B=1-5 still meet the 15 us bar (14.46 us at B=5 before)
# and what B=6-8, 64 and 128 do there. Run from the repository root, carrying .whl:
#   bash docs/diagnostics/h100-session53-20261205/call2.sh
bash scripts/device/in_graph_call.sh 2 docs/diagnostics/h100-session53-20261205/variants1.json 1,2,4,5,6,7,8,64,128
