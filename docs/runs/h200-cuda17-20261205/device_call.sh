#!/usr/bin/env bash
# Fifty-eighth session, call 1, on an H200 (the device tool's `nvidia-h200`): the headline command
# `python -m engine evolve templates/sparse_mla.cu.j2 --budget 200` on the whole CUDA space, seed
# 58, the first run in which the loop evaluates a default genome for each cache format (bf16 and
# FP8-656) and scores each genome against its own format's default; then `engine compact` and
# `engine show` (show.txt), the run folder brought back as an archive. Run from the repository
# root, carrying .whl:
bash scripts/device/headline_call.sh 1 58
