#!/usr/bin/env bash
# Fifty-sixth session, call 7, on an H200 (the device tool's `nvidia-h200`; the six calls before it
# got H100s): the fifty-fourth session's prepared call (docs/diagnostics/h200-session54-20261205/call2.sh),
# the headline command `python -m engine evolve templates/sparse_mla.cu.j2 --budget 200` on the
# whole CUDA space with FP8_RAW_PLACES, seed 54, then `engine compact` and `engine show`
# (show.txt), the run folder brought back as an archive. It ran through the session's call2.sh,
# which runs docs/diagnostics/PREPARED on an H200 only. Run from the repository root, carrying .whl:
#   bash docs/diagnostics/session56-20261205/call2.sh
bash scripts/device/headline_call.sh 2 54
