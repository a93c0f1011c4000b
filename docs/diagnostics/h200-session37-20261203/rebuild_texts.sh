#!/usr/bin/env bash
# Rebuilds the template text this session's variants files name (run from the repository root):
# main's text at the session's start.
set -euo pipefail
D=docs/diagnostics/h200-session37-20261203
git show 77df3fe:templates/sparse_mla.cu.j2 > $D/main-77df3fe.cu.j2
# mended.cu.j2: main's text with the review's mend alone (call 1's "mended" and edit variants)
patch -s -o $D/mended.cu.j2 $D/main-77df3fe.cu.j2 < <(sed 's@templates/sparse_mla.cu.j2@x@g' $D/mended.diff)
git show 584159b:templates/sparse_mla.cu.j2 > $D/c584159b.cu.j2  # calls 4-: the template after calls 1-2
# copies-out-first.cu.j2 (call 4): FP8's first copies all out before any dequantization, a diff against c584159b
patch -s -o $D/copies-out-first.cu.j2 $D/c584159b.cu.j2 < <(sed 's@templates/sparse_mla.cu.j2@x@g' $D/copies-out-first.diff)
# tile0-then-copies.cu.j2 (call 5): FP8's tile 0 dequantized, the full barrier, tiles 2-3's copies, then tile 1; against c584159b
patch -s -o $D/tile0-then-copies.cu.j2 $D/c584159b.cu.j2 < <(sed 's@templates/sparse_mla.cu.j2@x@g' $D/tile0-then-copies.diff)
# one-product.cu.j2 (call 6): the upper pair's conversion without a shift, and one product a pair where the warp's scales allow; against c584159b
patch -s -o $D/one-product.cu.j2 $D/c584159b.cu.j2 < <(sed 's@templates/sparse_mla.cu.j2@x@g' $D/one-product.diff)
# call 7 ran the working text that the session's next commit holds (c584159b plus no-shift.diff)
