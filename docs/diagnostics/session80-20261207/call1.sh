#!/usr/bin/env bash
# Eightieth session, call 1, any card: launcher isolation on a GPU (evaluators/isolated_launcher.py).
# The Triton and Gluon templates' launchers recorded in a process that sees no GPU, on fake CUDA
# tensors, and replayed in the worker: each genome passes every stage (e2e included) and is timed
# within 5% + 1 us of itself with its launcher in the worker; and the GPU-only cheats isolated
# (tests/gpu/test_gpu_isolated_launcher.py, about 3-5 minutes with the compiles). The worker log
# (pytest's tmp folder) holds the recorder's output; the test log is call80-gpu_tests.log. Files
# are named call80-*: the seventy-ninth session's call1.sh writes call1-* into the same folder.
# From the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session80-20261207/call1.sh
n=80 && source scripts/device/call_env.sh
bash scripts/device/template_gpu_tests.sh 80 "$(( ${CALL_SECONDS:-450} - 230 ))" tests/gpu/test_gpu_isolated_launcher.py
for f in /tmp/pytest-of-*/pytest-current/worker*/worker.log; do echo "== $f"; tail -60 "$f"; done > "$OUT/call80-worker-tail.txt" 2>&1
cat "$OUT/call80-machine.txt"
# then the cost side by side (isolation_figures.py: two templates, four evaluations each; 200 s kept for it)
timeout -s INT 200 python3 docs/diagnostics/session80-20261207/isolation_figures.py "$OUT" > "$OUT/call80-figures.txt" 2>&1
echo "figures rc $?" >> "$OUT/call80-machine.txt"; cat "$OUT/call80-figures.txt"
