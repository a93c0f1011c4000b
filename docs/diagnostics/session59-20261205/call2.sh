#!/usr/bin/env bash
# Fifty-ninth session's second prepared call: issue 4's same-call table again, now with the PyTorch
# reference path timed on the FP8-656 cache too (time_cuda_genomes.py --reference times it on each
# cache format a variant reads), so that the FP8 column has a PyTorch column of its own problem
# beside it, from the same call. The variants are the fifty-third session's (the headline run's
# best CUDA genomes, the small-batch genomes, Gluon's three). An H200 call gives the table of
# record; any other card's is that card's, labelled by call2-machine.txt. About 9 minutes. Run
# from the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session59-20261205/call2.sh
bash scripts/device/same_call_table.sh 2 docs/diagnostics/h100-session53-20261205/variants3.json
