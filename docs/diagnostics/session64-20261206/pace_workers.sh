#!/usr/bin/env bash
# Prepared in the sixty-fourth session (any card): does the search go faster with 12 compile-ahead
# workers than with the default 8? The headline command on seed 64, with the next batch asked
# ahead (as in that session's call 5: 90 genomes in the first 200 s with 8 workers, H100), once
# with `--compile-workers 8` and once with 12, 240 s each, each its own run folder (no shared
# build cache); scripts/device/pace_call.sh prints the genomes each recorded by 100, 150 and
# 200 s. nvcc's peak memory on a siblings genome is about 180 MB, so 12 at once fit any of the
# device machines. About 9 minutes. From the repository root, carrying .whl:
#   bash docs/diagnostics/session64-20261206/pace_workers.sh
for workers in 8 12; do
  bash scripts/device/pace_call.sh "pace-w$workers" 64 240 "evolve-s64-w$workers" --compile-workers "$workers"
done
