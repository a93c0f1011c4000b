#!/usr/bin/env bash
# Rebuilds the template text this session's variants files name (run from the repository root):
# main's text at the session's start (calls 2-: "main text").
set -euo pipefail
D=docs/diagnostics/h200-session38-20261203
git show 3650bee:templates/sparse_mla.cu.j2 > $D/main-3650bee.cu.j2
