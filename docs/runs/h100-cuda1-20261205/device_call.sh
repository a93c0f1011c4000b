#!/usr/bin/env bash
# Fifty-fifth session, calls 3 and 4, each on an H100 (the device tool's machine; an H200 was asked
# for and an H100 came): the headline command, `python -m engine evolve templates/sparse_mla.cu.j2
# --budget 200` on the whole CUDA space, seed 55. Call 3: headline_call.sh's 520 s guard stopped
# the search after 149 of 200 genomes (the H100 took 3.6 s a genome, the H200 2.3 in the
# forty-ninth session). Call 4, on a fresh H100, carrying the run folder (results/evolve-s55, with
# its Optuna journal): the same command with --resume took it to 200 in 123 s; then `engine compact`
# and `engine show` (show.txt). Run from the repository root, carrying .whl (and for call 4 the folder):
bash scripts/device/headline_call.sh 3 55                     # call 3
n=4; source scripts/device/call_env.sh                         # call 4
timeout -s TERM 420 python3 -m engine evolve templates/sparse_mla.cu.j2 --budget 200 --seed 55 --timeout-s 120 \
  --out results/evolve-s55 --resume
python3 -m engine compact results/evolve-s55
python3 -m engine show results/evolve-s55
