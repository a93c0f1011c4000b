#!/usr/bin/env bash
# Fifty-third session, call 3 (prepared for a session that gets an H200): issue 4's same-call table
# (point 5) on the template as it stands, the forty-second session's being older than the FP8
# changes of sessions 43-53. The Triton template's best genomes of its archived sweep
# (time_triton_best.py), then in one worker, twice each: the PyTorch reference path, the best CUDA
# genomes of the forty-ninth session's headline run (bf16 and FP8-656, docs/runs/h200-cuda15-20261205/
# show.txt), the two small-batch genomes of the bars and the Gluon template's three genomes
# (time_cuda_genomes.py --reference). The harness's method: one call a graph, 30 replays, every
# output checked. Run from the repository root, carrying .whl:
#   bash docs/diagnostics/h100-session53-20261205/call3.sh
bash scripts/device/same_call_table.sh 3 docs/diagnostics/h100-session53-20261205/variants3.json
