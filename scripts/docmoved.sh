#!/usr/bin/env bash
# docmoved.sh [REV] — "nothing lost" when README.md is split into docs/:
# prints the non-blank lines of REV:README.md (default main) that are in
# neither README.md nor docs/*.md of the working tree, counted as a multiset
# (a line REV had twice must be there twice), and how many there are.
# Heading levels are ignored ("### `medteam run`" moved as "## `medteam run`"
# is not lost). Run from the repository root.
set -euo pipefail
rev=${1:-main}
norm() { grep -v '^[[:space:]]*$' | sed -E 's/^#{1,6} //' | LC_ALL=C sort; }
old=$(mktemp) new=$(mktemp)
trap 'rm -f "$old" "$new"' EXIT
git show "$rev:README.md" | norm >"$old"
cat README.md docs/*.md | norm >"$new"
lost=$(LC_ALL=C comm -23 "$old" "$new")
if [ -n "$lost" ]; then
	printf '%s\n' "$lost"
fi
echo "docmoved: $(printf '%s' "$lost" | grep -c '' || true) of $(wc -l <"$old") non-blank lines of $rev:README.md are in neither README.md nor docs/*.md"
