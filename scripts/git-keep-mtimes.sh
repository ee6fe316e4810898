#!/bin/bash
# Run a git command in the kernel tree (e.g. "rebase -i --autosquash
# --update-refs base") and give every file the series touches its old
# mtime back when its content did not change, so kbuild does not rebuild
# the world after a history edit that only moved commits around.
# usage: git-keep-mtimes.sh SRCDIR GIT-ARGS...
set -euo pipefail
src=$1
shift
keep=$(mktemp)
trap 'rm -f "$keep"' EXIT
git -C "$src" diff --name-only base HEAD | while read -r f; do
	[ -f "$src/$f" ] && printf '%s %s %s\n' "$(git -C "$src" hash-object -- "$f")" \
		"$(stat -c %Y "$src/$f")" "$f"
done > "$keep"
GIT_SEQUENCE_EDITOR=${GIT_SEQUENCE_EDITOR:-true} git -C "$src" "$@"
while read -r blob mtime f; do
	[ -f "$src/$f" ] && [ "$(git -C "$src" hash-object -- "$f")" = "$blob" ] &&
		touch -m -d "@$mtime" "$src/$f"
done < "$keep"
