#!/usr/bin/env bash
# Fifty-second session, call 2 (prepared for a session that gets an H200; this session's machine
# was an H100): the e2e stage's GPU tests (tests/gpu/test_gpu_e2e.py: each template's default
# genome inside the DeepSeek-V3.2 decode layer at B=1 and B=64, ctx 32K, and the faulty fixture
# caught there), then the card's ceilings, so that docs/BENCHMARKS.md has the e2e figures of the
# card the bars are set on beside this session's H100 ones. On an H100 it repeats call 1 and the
# fifty-first session's call 1. Run from the repository root, carrying .whl:
#   bash docs/diagnostics/h100-session52-20261205/call2.sh
n=2; source scripts/device/call_env.sh
t0=$(date +%s)
timeout 420 python3 -m pytest -q -s -p no:cacheprovider tests/gpu/test_gpu_e2e.py --durations=5 > "$OUT/call2-gpu_tests.log" 2>&1
echo "gpu_tests rc $? $(( $(date +%s) - t0 )) s" | tee -a "$OUT/call2-machine.txt"
tail -3 "$OUT/call2-gpu_tests.log"
timeout 120 python3 scripts/device/ceilings.py --reps 20 | tee -a "$OUT/call2-machine.txt"
