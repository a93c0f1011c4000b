#!/usr/bin/env bash
# The id of a set of files, to name what a device call ran. The device machine gets a copy of the
# working tree, but its .git can lag that copy (the seventy-fourth session's printed a commit three
# behind the files it ran), so `git log` there names the wrong code. This hashes the files
# themselves: each path with its content's blob id, modes left out (a copy may not keep them).
# Usage, from the repository root:
#   bash scripts/device/tree_id.sh           # the working tree: tracked and untracked files, not ignored ones
#   bash scripts/device/tree_id.sh COMMIT    # the same id for a commit's files (here, to match a call's)
set -euo pipefail
if [ $# -gt 0 ]; then
  git ls-tree -r "$1" | sed 's/^[0-9]* [a-z]* \([0-9a-f]*\)\t/\1 /'
else
  index=$(mktemp)
  rm -f "$index"  # git makes a fresh index there; an empty file is not one
  trap 'rm -f "$index"' EXIT
  GIT_INDEX_FILE=$index git add -A
  GIT_INDEX_FILE=$index git ls-files -s | sed 's/^[0-9]* \([0-9a-f]*\) [0-9]*\t/\1 /'
fi | LC_ALL=C sort -k2 | sha1sum | cut -c1-16
