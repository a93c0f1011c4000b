#!/usr/bin/env bash
# Sixtieth session, one device call on an H100 (the device tool's machine; none was named): the
# fifty-ninth session's prepared call 1, the search with the decode layer on the whole CUDA space,
# `python -m engine evolve templates/sparse_mla.cu.j2 --budget 30 --seed 59 --e2e --objectives
# score,e2e`, then `engine show` and `engine audit --top 1` (audit/). Here: `engine compact` and
# `engine show` (show.txt). Run from the repository root, carrying .whl:
bash scripts/device/e2e_audit_call.sh 1 59 30
