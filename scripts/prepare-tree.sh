#!/bin/bash
# Unpack the Debian kernel source once as a git repository whose first
# commit (tag "base") is the pristine tree, then make HEAD equal to base plus
# the series, with "git am -3".  The series is re-applied from base only when
# a patch changed; files whose content ends up identical keep their old
# mtime, so kbuild recompiles only what the change really touched.
#
# Each layer ends at a branch "layer/<name>" (the last one is checked out as
# "series"), so that "git rebase -i --update-refs base" keeps the layers
# apart while developing and scripts/export-series.sh can write them back.
#
# The tarball, its Debian package and version come from scripts/base.sh.
# usage: prepare-tree.sh SRCDIR PATCHDIR LAYER...
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"

tarball=$TARBALL src=$1 pdir=$(cd "$2" && pwd)
shift 2
layers=("$@")
patches=()
for l in "${layers[@]}"; do
	for p in "$pdir/$l"/*.patch; do
		[ -e "$p" ] && patches+=("$p")
	done
done
git() { command git -C "$src" -c user.name="nosuid harness" \
	-c user.email=harness@localhost -c advice.detachedHead=false "$@"; }
die() { echo "error: $*" >&2; exit 1; }

if [ "$BASE" = 6.12 ]; then
	[ -r "$tarball" ] || die "$tarball not found (apt-get install linux-source-6.12)"
else
	[ -r "$tarball" ] || die "$tarball not found (scripts/fetch-source.sh fetches it)"
fi
tar_id=$(stat -c '%n %s %Y' "$tarball")
state=$src/.git/nosuid-series	# "<sum of patches> <HEAD after am>"
failed=$src/.git/nosuid-failed	# HEAD where a patch last failed to apply
# Work that lives only in the tree: commits after the applied series (or
# after the patch that failed), or uncommitted changes.
unsaved() {
	local at=
	[ -f "$state" ] && at=$(cut -d' ' -f2 "$state")
	[ -n "$at" ] || [ ! -f "$failed" ] || at=$(cat "$failed")
	{ [ -n "$at" ] && [ "$(git rev-parse HEAD)" != "$at" ]; } ||
		[ -n "$(git status --porcelain --untracked-files=no)" ]
}

if [ ! -d "$src/.git" ] || [ "$(cat "$src/.git/nosuid-tarball" 2>/dev/null)" != "$tar_id" ]; then
	# A new tarball (7.3's point releases come by themselves) unpacks a
	# new tree: never over work that is not in the patches yet.
	[ ! -d "$src/.git" ] || ! unsaved ||
		die "$tarball changed ($DEB_LABEL) but $src has commits or changes not in ${pdir#"$top"/}: run 'make export' to save them, or 'make reset-tree' to drop them, before it is unpacked again"
	echo "unpacking $tarball ($DEB_LABEL) into $src"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -C "$src.tmp" -xJf "$tarball" --strip-components=1
	mv "$src.tmp" "$src"
	kver=$(make -s -C "$src" kernelversion)
	git init -q
	# Debian's top-level .gitignore ignores everything: add with -f.
	git add -f -A .
	git commit -q -m "base: $kver ($DEB_LABEL)"
	git tag base
	echo "$tar_id" > "$src/.git/nosuid-tarball"
fi
kver=$(make -s -C "$src" kernelversion)

sum=$(cat /dev/null "${patches[@]}" | sha256sum | cut -d' ' -f1)
head=$(git rev-parse HEAD)
if [ -f "$state" ]; then
	read -r old_sum old_head < "$state"
	[ "$head" = "$old_head" ] || die "$src has commits that are not in ${pdir#"$top"/} (HEAD $head, series applied at $old_head): run 'make export' to save them, or 'make reset-tree' to drop them"
	[ "$sum" = "$old_sum" ] && { echo "kernel tree: $kver ($DEB_LABEL) with ${#patches[@]} patches of ${pdir#"$top"/} (unchanged)"; exit 0; }
elif [ -f "$failed" ]; then
	# Commits made by hand after a failure (a port in progress) are kept.
	[ "$head" = "$(cat "$failed")" ] || die "$src has commits made after a patch failed to apply (HEAD $head, stopped at $(cat "$failed")): run 'make export' to save them, or 'make reset-tree' to drop them"
fi
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	die "$src has uncommitted changes; commit and 'make export' them, or 'make reset-tree'"

# Remember the content and mtime of every file the old series touched.
keep=$(mktemp)
trap 'rm -f "$keep"' EXIT
git diff --name-only base HEAD | while read -r f; do
	[ -f "$src/$f" ] && printf '%s %s %s\n' "$(git hash-object -- "$f")" \
		"$(stat -c %Y "$src/$f")" "$f"
done > "$keep"

rm -f "$state"
git am --abort >/dev/null 2>&1 || true
git checkout -q -f -B series base
for l in "${layers[@]}"; do
	for p in "$pdir/$l"/*.patch; do
		[ -e "$p" ] || continue
		if ! out=$(git am -3 -q "$p" 2>&1); then
			git am --abort >/dev/null 2>&1 || true
			git rev-parse HEAD > "$failed"
			# git says why: a conflict, or a local fault (no index written).
			echo "error: git am -3 failed on ${p#"$top"/} (BASE=$BASE, $kver, $DEB_LABEL):" >&2
			# Its advice (--continue, --skip) is moot after the abort.
			echo "$out" | grep -v -e '^hint:' -e '^When you have resolved' \
				-e '^If you prefer to skip' -e '^To restore the original branch' |
				sed 's/^/  git am: /' >&2
			exit 1
		fi
	done
	git branch -f "layer/$l" HEAD
done

while read -r blob mtime f; do
	[ -f "$src/$f" ] && [ "$(git hash-object -- "$f")" = "$blob" ] &&
		touch -m -d "@$mtime" "$src/$f"
done < "$keep"
echo "$sum $(git rev-parse HEAD)" > "$state"
rm -f "$failed"
echo "kernel tree: $kver ($DEB_LABEL) with ${#patches[@]} patches of ${pdir#"$top"/} applied"
