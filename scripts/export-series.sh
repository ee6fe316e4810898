#!/bin/bash
# Write the commits of the kernel tree back into PATCHDIR/<layer>/ (the
# directory of the base in use: patches/ or patches/6.12/), one directory
# per layer: layer N is layer/<N-1>..layer/<N>, the last layer ends at
# HEAD.  The patches are then checked with checkpatch --strict.
# usage: export-series.sh SRCDIR PATCHDIR LAYER...
set -euo pipefail
src=$1 pdir=$(cd "$2" && pwd)
shift 2
top=$PWD
prev=base
n=$#
i=0
for l in "$@"; do
	i=$((i + 1))
	end=layer/$l
	[ $i -eq $n ] && end=HEAD
	rm -f "$pdir/$l"/*.patch
	mkdir -p "$pdir/$l"
	# Blob ids at a fixed length: git's own grows with the tree's
	# objects, and a fresh tree would rewrite every index line.
	git -C "$src" -c core.abbrev=9 format-patch -q --zero-commit \
		--no-signature -o "$pdir/$l" "$prev..$end"
	[ $i -eq $n ] || git -C "$src" rev-parse -q --verify "$end" >/dev/null
	# A layer the base does not have (6.12's TSYNC is inside its first
	# two): no directory.
	rmdir --ignore-fail-on-non-empty "$pdir/$l"
	prev=$end
done
for l in "$@"; do ls "$pdir/$l"/*.patch 2>/dev/null || true; done | while read -r p; do
	# Debian's python3 has ply for spdxcheck.py; a pyenv one may not.
	out=$(cd "$src" && PATH=/usr/bin:/bin:$PATH ./scripts/checkpatch.pl --strict -q "$p" 2>&1 | tail -4) || true
	echo "${p#"$top"/}: ${out:-checkpatch clean}"
done
# The tree is now exactly what the patches make of base: record it, so that
# prepare-tree.sh does not re-apply them.
cat /dev/null $(for l in "$@"; do ls "$pdir/$l"/*.patch 2>/dev/null || true; done) |
	sha256sum | cut -d' ' -f1 | tr '\n' ' ' > "$src/.git/nosuid-series"
git -C "$src" rev-parse HEAD >> "$src/.git/nosuid-series"
rm -f "$src/.git/nosuid-failed"
