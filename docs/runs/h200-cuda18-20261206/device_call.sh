#!/usr/bin/env bash
# Sixty-sixth session, call 1, on an H200 (the device tool's `nvidia-h200`), as the sixty-third
# session's prepared `docs/diagnostics/session63-20261206/call7.sh`: the headline command
# `python -m engine evolve templates/sparse_mla.cu.j2 --budget 200` on the whole CUDA space, seed
# 63, on the template with an entry a split count, each genome built for the H200's 132 SMs
# (template 41bfb0b74b0c81f4); then `engine compact` and `engine show` (show.txt), the run folder
# brought back as an archive (docs/diagnostics/session66-20261206/evolve-s63.tgz, with its
# compile and worker logs). Run from the repository root, carrying .whl:
bash scripts/device/headline_call.sh 7 63
