#!/usr/bin/env bash
# Sixty-fifth session, call 3 (any card): call 2 again in the other order (the build for the
# run's GPUs first, then main before the change, 0e85a97), 230 s each on seed 64, both run
# folders brought back in one archive ($OUT/call3-runs.tgz: the device tool returns 8 files, and
# call 2 lost its second run's). From the repository root on the device, carrying .whl and
# build/base-0e85a97.tgz:
#   bash docs/diagnostics/session65-20261206/call3.sh
set -u
repo=$PWD
base=/tmp/kg-base-0e85a97
rm -rf "$base" && mkdir -p "$base" && tar xzf build/base-0e85a97.tgz -C "$base" && ln -s "$repo/.whl" "$base/.whl"
bash scripts/device/pace_call.sh narrow2 64 230 evolve-s65-narrow2
(cd "$base" && bash scripts/device/pace_call.sh base2 64 230 evolve-s65-base2)
cd "$OUT" && tar czf call3-runs.tgz evolve-s65-narrow2.tgz evolve-s65-base2.tgz callnarrow2-* callbase2-* \
  && rm -f evolve-s65-narrow2.tgz evolve-s65-base2.tgz callnarrow2-* callbase2-*
