#!/usr/bin/env bash
# Forty-ninth session, call 3: the headline command on the new FP8 copies (1789088's template):
# `python -m engine evolve templates/sparse_mla.cu.j2 --budget 200` on the whole CUDA space, seed
# 49, then `engine compact` and `engine show`, the run folder brought back as an archive. Run from
# the repository root, carrying .whl:
#   bash docs/diagnostics/h200-session49-20261205/call3.sh
bash scripts/device/headline_call.sh 3 49
