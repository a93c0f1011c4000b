#!/usr/bin/env bash
# Rebuilds the template text this session's variants files name (run from the repository root):
# main's text at the session's start.
set -euo pipefail
D=docs/diagnostics/h200-session37-20261203
git show 77df3fe:templates/sparse_mla.cu.j2 > $D/main-77df3fe.cu.j2
# mended.cu.j2: main's text with the review's mend alone (call 1's "mended" and edit variants)
patch -s -o $D/mended.cu.j2 $D/main-77df3fe.cu.j2 < <(sed 's@templates/sparse_mla.cu.j2@x@g' $D/mended.diff)
