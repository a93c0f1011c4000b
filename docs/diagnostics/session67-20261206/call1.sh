#!/usr/bin/env bash
# Sixty-seventh session, call 1, any card: where the bf16 small-batch genome's warps stall, with
# the instruction caches warm. ncu samples the warps' program counters (SourceCounters,
# WarpStateStats) on the third of three launches (`--cache-control none`: no flush between the
# launches or ncu's passes, so the kernel's code stays cached as in a graph of calls; clocks left
# alone), at B=8 (entry _s8) and B=1, ctx 128K; the per-SASS-line samples come back as CSV.
# Then, on an H200 only, the sixty-sixth session's prepared call3.sh. From the repository root
# on the device, carrying .whl (everything comes back in call1-all.tgz):
#   bash docs/diagnostics/session67-20261206/call1.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv,noheader | tee "$OUT/call1-card.txt"
V=docs/diagnostics/session63-20261206/variants_bars.json
for b in 8 1; do
  timeout 200 ncu --clock-control none --cache-control none --kernel-name regex:^sparse_mla_decode_split \
    --launch-skip 2 --launch-count 1 --section WarpStateStats --section SourceCounters -f -o /tmp/pc_b$b \
    python3 scripts/device/ncu_one_launch.py --variants $V "pair i8 (bf16)" --batch $b --context 131072 \
    > "$OUT/call1-ncu-b$b.log" 2>&1
  ncu -i /tmp/pc_b$b.ncu-rep --page details >> "$OUT/call1-ncu-b$b.log" 2>&1
  ncu -i /tmp/pc_b$b.ncu-rep --page source --csv --print-source sass 2>&1 | gzip > "$OUT/call1-sass-b$b.csv.gz"
done
grep -q H200 "$OUT/call1-card.txt" && bash docs/diagnostics/session66-20261206/call3.sh
# the device tool brings back at most 8 files: one archive of them all
tar czf /tmp/call1-all.tgz -C "$OUT" . && find "$OUT" -type f -delete && mv /tmp/call1-all.tgz "$OUT/"
exit 0
