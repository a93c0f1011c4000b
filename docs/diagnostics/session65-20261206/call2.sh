#!/usr/bin/env bash
# Sixty-fifth session, call 2 (any card): the search's pace with each genome built for the run's
# GPUs (the split-kernel entries its calls launch only, evaluators/build_target.py) against main
# before the change (0e85a97), in one call: the headline command on seed 64 for 240 s each,
# the base first, each its own run folder and build cache (scripts/device/pace_call.sh), 8
# compile workers (the default on 16 cores). The base tree travels as build/base-0e85a97.tgz
# (`git archive 0e85a97 engine evaluators templates genomes scripts context pyproject.toml`).
# From the repository root on the device, carrying .whl and build/base-0e85a97.tgz:
#   bash docs/diagnostics/session65-20261206/call2.sh
set -u
repo=$PWD
base=/tmp/kg-base-0e85a97
rm -rf "$base" && mkdir -p "$base" && tar xzf build/base-0e85a97.tgz -C "$base" && ln -s "$repo/.whl" "$base/.whl"
(cd "$base" && bash scripts/device/pace_call.sh base 64 240 evolve-s65-base)
bash scripts/device/pace_call.sh narrow 64 240 evolve-s65-narrow
python3 -c "import json; print('run.json build_sm_counts:', json.load(open('results/evolve-s65-narrow/run.json')).get('build_sm_counts'))"
