#!/usr/bin/env bash
# Prepared for the next session with a device: FP8_SCORES = raw (raw-scores.diff, built here and
# never run: the scorer reads the raw e4m3 rows, the queries as e4m3 hi and lo parts, each tile
# dequantized for its values once scored; this folder's README). Its GPU tests first (the harness's
# checks against the float64 reference at every workload), then in-graph timings beside the FP8
# and bf16 small-batch genomes. Run from the repository root, carrying .whl:
#   bash docs/diagnostics/cpu-session46-20261204/next_call4.sh
n=4; source scripts/device/call_env.sh  # the wheels on the path, the clocks noted ($OUT/call4-machine.txt)
diff=docs/diagnostics/cpu-session46-20261204/raw-scores.diff
patch -p1 --forward < "$diff" > "$OUT/call4-patch.log" 2>&1 \
  || { echo "the diff did not apply"; cat "$OUT/call4-patch.log"; exit 1; }
# the tree as it came for any later call, also when run_prepared.sh's time limit stops this one
trap 'patch -p1 -R < "$diff" >> "$OUT/call4-patch.log" 2>&1' EXIT
trap 'exit 143' TERM
timeout 240 python3 -m pytest -q tests/gpu/test_gpu_cuda_template.py -k raw > "$OUT/call4-gpu_tests.log" 2>&1
tail -3 "$OUT/call4-gpu_tests.log"
bash scripts/device/in_graph_call.sh 4 docs/diagnostics/cpu-session46-20261204/next_variants4.json 1,2,4,5,8,64,128
