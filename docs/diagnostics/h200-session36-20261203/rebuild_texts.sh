#!/usr/bin/env bash
# Rebuilds the template texts this session's variants files name (run from the repository root):
# main's text at the session's start, and each other text as its diff against that one.
set -euo pipefail
D=docs/diagnostics/h200-session36-20261203
git show 8ebe7a4:templates/sparse_mla.cu.j2 > $D/main-8ebe7a4.cu.j2
for t in copies-first early two-chunks-scales-v4 lean-scale-per-chunk; do
  patch -s -o $D/$t.cu.j2 $D/main-8ebe7a4.cu.j2 < $D/$t.diff
done
# gather-free.cu.j2 (call 5) is a diff against the template as b52b92f left it
git show b52b92f:templates/sparse_mla.cu.j2 > /tmp/sparse_mla-b52b92f.cu.j2
patch -s -o $D/gather-free.cu.j2 /tmp/sparse_mla-b52b92f.cu.j2 < $D/gather-free.diff
# predicated-stores.cu.j2 (call 6), likewise
patch -s -o $D/predicated-stores.cu.j2 /tmp/sparse_mla-b52b92f.cu.j2 < $D/predicated-stores.diff
