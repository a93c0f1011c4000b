#!/usr/bin/env bash
# Fifty-third session, call 5: the FP8 register-operand lead's first step, on any card (the two
# paths are compared within the call): scripts/device/fp8_operand_paths.py times one warpgroup's
# 64-row FP8 tile through today's way (converted into shared memory, then the score products) and
# through ldmatrix -> conversion in registers -> wgmma's A operand (nothing stored), for the scores
# and, by ldmatrix.trans, for the value products (256 columns), and checks all three against float64. Run from the repository root, carrying .whl:
#   bash docs/diagnostics/h100-session53-20261205/call5.sh
n=5; source scripts/device/call_env.sh
t0=$(date +%s)
timeout 120 python3 scripts/device/fp8_operand_paths.py --iters 256 > "$OUT/call5-operand_paths.log" 2>&1
echo "operand_paths rc $? $(( $(date +%s) - t0 )) s" >> "$OUT/call5-machine.txt"
mv "$OUT/fp8_operand_paths.json" "$OUT/call5-operand_paths.json" 2>/dev/null
cat "$OUT/call5-machine.txt" "$OUT/call5-operand_paths.log"
