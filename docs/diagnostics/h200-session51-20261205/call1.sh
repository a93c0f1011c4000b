#!/usr/bin/env bash
# Fifty-first session, call 1 (prepared, not run: no machine was lent): the e2e stage's first run
# on a GPU. Each template's default genome inside the DeepSeek-V3.2 decode layer at the model's
# sizes (evaluators/decode_layer.py: 366 MB of bf16 weights), its outputs checked there, the layer
# timed with and without the kernel in one CUDA graph a step, at B=1 and B=64, ctx 32K; and the
# faulty fixture that stops writing after its checked calls, caught inside the layer. The figures
# (layer, layer without attention, attention inside, attention alone) go to docs/BENCHMARKS.md.
# Run from the repository root, carrying .whl:
#   bash docs/diagnostics/h200-session51-20261205/call1.sh
n=1; source scripts/device/call_env.sh
t0=$(date +%s)
timeout 500 python3 -m pytest -q -s -p no:cacheprovider tests/gpu/test_gpu_e2e.py --durations=5 > "$OUT/call1-gpu_tests.log" 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - t0 )) s" | tee -a "$OUT/call1-machine.txt"
tail -3 "$OUT/call1-gpu_tests.log"
