#!/usr/bin/env bash
# Fifty-ninth session's third prepared call: an export used as a model would use it. The GPU test
# exports the fifty-eighth session's H200 run (nvcc builds its four cubins), then, from the
# export folder with nothing of this repository importable, runs `launcher.load(select(...))`
# for each cache format at B=8 on fresh inputs inside a CUDA graph, checked against the float64
# reference. Any Hopper card answers it. About 3-5 minutes. Run from the repository root on the
# device, carrying .whl:
#   bash docs/diagnostics/session59-20261205/call3.sh
n=3; source scripts/device/call_env.sh
timeout -s INT 540 python3 -m pytest -q -s -p no:cacheprovider tests/gpu/test_gpu_export.py \
  2>&1 | tee "$OUT/call3-gpu_export.log" | tail -30
