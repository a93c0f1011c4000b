#!/usr/bin/env bash
# Session 10, call 4: the small-batch genomes timed as a decode step sees them (16 calls on their
# own inputs in one graph, per call) beside the harness's one call a graph, and the floors of both.
set -u
D=docs/diagnostics/h200-session10-20261201
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/gpu.txt
timeout 500 python3 scripts/device/time_in_graph.py $D/call4-variants.json --batches 1,8 --context 131072 --calls 16 > $OUT/in_graph.log 2>&1
echo "rc $?"; cat $OUT/in_graph.log | cut -c1-400
