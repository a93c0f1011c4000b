#!/usr/bin/env bash
# Sixty-third session, prepared for an H200 (after call6.sh): the headline command on the template
# with an entry a split count (e8234ba37d714862), `python -m engine evolve templates/sparse_mla.cu.j2
# --budget 200` on the whole CUDA space, seed 63, then `engine compact` and `engine show`, the run
# folder brought back as an archive (scripts/device/headline_call.sh). The table and the
# B=64-128 bars on the new text, beside the PyTorch path of the same run. On an H100 it prints the
# card and stops. About 8-9 minutes; if its guard stops the search, the next call goes on with
# `bash scripts/device/headline_call.sh 8 63 --resume`, carrying results/evolve-s63 unpacked.
# From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session63-20261206/call7.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv,noheader | tee "$OUT/call7-card.txt"
grep -q H200 "$OUT/call7-card.txt" || exit 0
bash scripts/device/headline_call.sh 7 63
