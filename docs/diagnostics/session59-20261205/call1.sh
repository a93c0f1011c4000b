#!/usr/bin/env bash
# Fifty-ninth session's prepared call (no device was lent that session): the search with the decode
# layer on the whole CUDA space, a Pareto front of score and e2e for each cache format, then each
# format's best audited in a fresh worker on the same card. The run now times the PyTorch path on
# each cache format (rows pytorch-reference-bf16 and -fp8_656), and `show` sets each format's best
# beside its own. Any Hopper card answers it (the audit compares the card with itself); it judges
# no bar. About 5 minutes. Run from the repository root on the device, carrying .whl:
#   bash docs/diagnostics/session59-20261205/call1.sh
bash scripts/device/e2e_audit_call.sh 1 59 30
