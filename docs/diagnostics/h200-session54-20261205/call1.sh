#!/usr/bin/env bash
# Fifty-fourth session, call 1 (any card: every path is compared within the call): the fifty-third
# session's call 5 again (scripts/device/fp8_operand_paths.py: the FP8 tile's scores through shared
# memory and through registers, the value sums through registers, each warpgroup alone) with the
# register design's three warpgroups at once ("mixed": scores beside both value warpgroups on the
# same raw rows), whose slowest warpgroup's cycles a 64-row tile are what a pair would cost without
# hand-offs. Run from the repository root, carrying .whl:
#   bash docs/diagnostics/h200-session54-20261205/call1.sh
n=1; source scripts/device/call_env.sh
t0=$(date +%s)
timeout 150 python3 scripts/device/fp8_operand_paths.py --iters 256 > "$OUT/call1-operand_paths.log" 2>&1
echo "operand_paths rc $? $(( $(date +%s) - t0 )) s" >> "$OUT/call1-machine.txt"
mv "$OUT/fp8_operand_paths.json" "$OUT/call1-operand_paths.json" 2>/dev/null
cat "$OUT/call1-machine.txt" "$OUT/call1-operand_paths.log"
