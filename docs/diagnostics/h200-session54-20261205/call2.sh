#!/usr/bin/env bash
# Fifty-fourth session, call 2 (prepared for a session that gets an H200; a whole device call: the
# search alone takes about 7 minutes): issue 4's headline command on the space as it stands, now
# with FP8_RAW_PLACES (the FP8 raw chunks' places: odd_flipped, 1.2% faster at B=64 on the H200,
# or bf16, 0.06-0.13 us faster at B=1-5), to see which the search keeps per workload and whether
# the dispatch ranges then split FP8-656 between them. The last such run is the forty-ninth
# session's (docs/runs/h200-cuda15-20261205/). Run from the repository root, carrying .whl:
#   bash docs/diagnostics/h200-session54-20261205/call2.sh
bash scripts/device/headline_call.sh 2 54
