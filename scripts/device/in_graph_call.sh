#!/usr/bin/env bash
# One device call of in-graph timings, the body every such call shares: the carried wheels on the
# path, the GPU's clocks noted, time_in_graph.py on a variants file (it compiles the variants in parallel
# first), its report renamed for the call, and the table of its figures.
# Usage, from the repository root on the device (the `device` tool's command, carrying .whl):
#   bash scripts/device/in_graph_call.sh N VARIANTS.json BATCHES
# writes $OUT/callN-machine.txt, $OUT/callN-in_graph.log and $OUT/callN-in_graph.json.
set -u
n=$1 variants=$2 batches=$3
source "$(dirname "$0")/call_env.sh"  # the wheels on the path, the clocks noted
t0=$(date +%s)
timeout 500 python3 scripts/device/time_in_graph.py "$variants" --batches "$batches" > "$OUT/call$n-in_graph.log" 2>&1
echo "in_graph rc $? $(( $(date +%s) - t0 )) s" >> "$OUT/call$n-machine.txt"
mv "$OUT/in_graph.json" "$OUT/call$n-in_graph.json" 2>/dev/null
cat "$OUT/call$n-machine.txt"
grep -E "skipped|compile failed" "$OUT/call$n-in_graph.log" | cut -c1-300  # variants that did not build
python3 scripts/in_graph_table.py "$OUT/call$n-in_graph.json" --marked-knockouts  # knockouts: names with "(knockout)"
