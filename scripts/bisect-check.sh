#!/bin/bash
# make bisect-check: every prefix of the series as mailed
# (build/$BASE/series-tree: each layer's patches, then its selftests)
# builds with the test config, the C files each patch touches build with
# W=1 without a warning in the files that patch touches, and at each layer
# boundary the kernel boots and passes the selftests that prefix has
# (series-selftests-boot.sh).
# BISECT=compile (make bisect-check BISECT=compile) keeps only the W=1 part: at each
# prefix, that patch's C files compile against that prefix's headers and
# config; no vmlinux, no boot.  The full walk recompiles the half of the
# tree that includes user_namespace.h (the userns per-user bound) and costs about 25 minutes.
#
# The walk goes backwards from the whole series in a copy of the patched
# build (build/$BASE/obj), so kbuild recompiles only what taking a patch out
# changes: the objects that include user_namespace.h or net_namespace.h
# once (the userns patches), a few files for the other patches, a link each,
# instead of a full build per prefix.  The ends need no build of their own:
# the whole series is "make check"'s kernel, the empty prefix the unpatched
# kernel that check-upstream builds and boots.
#
# kbuild's .cmd files name build/$BASE/linux and build/$BASE/obj; from any
# other path every command line would differ and every object be rebuilt.
# So each step runs in a private mount namespace in which the walk's
# worktree and object copy are mounted over build/$BASE/linux and
# build/$BASE/obj: the same paths, and the real tree and build are not
# touched.
# FROM=P TO=Q (make bisect-check FROM=9 TO=1) walks only prefixes P down
# to Q: the first step rebuilds the kernel as at P from the whole series'
# objects, then the walk goes on as usual.  It lets a long walk be done
# in parts; the whole walk is FROM=<last> TO=1, the default.
# usage: bisect-check.sh (after make image and make series)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
src=$B/linux
obj=$B/obj
series=$B/series-tree
d=$B/bisect
wt=$d/src
wobj=$d/obj
jobs=$(($(nproc) + 1))
mode=${BISECT:-full}
case $mode in full | compile) ;; *) echo "error: BISECT=$mode: full or compile" >&2; exit 1 ;; esac
ccache=$(command -v ccache || true)
die() { echo "error: $*" >&2; exit 1; }
start=$(date +%s)

[ -f "$obj/vmlinux" ] || die "no patched build in $obj: run make image"
git -C "$series" rev-parse -q --verify HEAD >/dev/null || die "no $series: run make series"
head=$(git -C "$series" rev-parse HEAD)
# The series tree must carry the kernel that build/$BASE/obj was built from.
differs=$(git -C "$src" diff --name-only HEAD "$head" -- . \
	':!tools/testing/selftests' ':!MAINTAINERS' ':!Documentation')
[ -z "$differs" ] || die "${series#"$top"/} and ${src#"$top"/} differ ($differs): run make series"

# Run "$@" with the walk's tree and objects at the real paths.
in_tree() {
	local userns=
	[ "$(id -u)" -eq 0 ] || userns=--map-root-user
	unshare $userns --mount sh -c \
		'mount --bind "$1" "$2" && mount --bind "$3" "$4" && shift 4 && exec "$@"' \
		sh "$wt" "$src" "$wobj" "$obj" "$@"
}
k() { in_tree make -C "$src" O="$obj" ARCH=x86_64 LOCALVERSION= \
	${ccache:+CC="ccache gcc"} "$@"; }

git -C "$src" worktree remove --force "$wt" 2>/dev/null || true
rm -rf "$d"
mkdir -p "$d"
git -C "$src" worktree prune
git -C "$src" worktree add -q --detach "$wt" "$head"
# Older than every object: kbuild must see only what the walk changes.
(cd "$wt" && git ls-files -z | xargs -0 touch -h -d @946684800)
# build/$BASE/obj may be a symlink to the real directory: copy what it holds.
mkdir -p "$wobj" && cp -a "$obj/." "$wobj"
in_tree true || die "cannot mount in a private mount namespace (unshare --mount)"

mapfile -t commits < <(git -C "$wt" rev-list --reverse base..HEAD)
n=${#commits[@]}
from=${FROM:-$n}
to=${TO:-1}
case "$from$to" in *[!0-9]*) die "FROM=$from TO=$to: prefix numbers, 1 to $n" ;; esac
[ "$from" -le "$n" ] && [ "$to" -ge 1 ] && [ "$to" -le "$from" ] ||
	die "FROM=$from TO=$to: need $n >= FROM >= TO >= 1"
parent() { [ "$1" -gt 1 ] && echo "${commits[$1 - 2]}" || echo base; }
# Files of patch P; with "kernel", only those that change the build.
files_of() {
	git -C "$wt" diff --name-only "$(parent "$1")" "${commits[$1 - 1]}" -- . \
		${2:+':!tools/testing/selftests' ':!Documentation' ':!MAINTAINERS'}
}
# A selftests patch: it changes nothing that the kernel build reads.
selftests_only() { [ -z "$(files_of "$1" kernel)" ] &&
	[ -n "$(git -C "$wt" diff --name-only "$(parent "$1")" "${commits[$1 - 1]}" -- tools/testing/selftests)" ]; }

rc=0
built=$n	# the prefix whose kernel is in the walk's objects
for ((p = from; p >= to; p--)); do
	c=${commits[$p - 1]}
	subject=$(git -C "$wt" log -1 --format=%s "$c")
	log=$d/build-$p.log
	t0=$(date +%s)
	git -C "$wt" checkout -q "$c"
	# Kernel sources as at prefix P differ from those built: rebuild.
	cp "$obj/.config" "$wobj/.config"
	if [ "$mode" = compile ]; then
		k -s olddefconfig > "$log" 2>&1 || { echo "FAIL $p/$n olddefconfig"; rc=1; break; }
		what="compiled"
	elif [ "$p" -eq "$from" ] || [ -n "$(git -C "$wt" diff --name-only "${commits[$built - 1]}" "$c" -- . \
		':!tools/testing/selftests' ':!Documentation' ':!MAINTAINERS')" ]; then
		if ! k -s olddefconfig vmlinux -j"$jobs" > "$log" 2>&1; then
			echo "FAIL $p/$n build: $subject"
			grep -E 'error' "$log" | head -5
			rc=1
			break
		fi
		built=$p
		what="built in $(( $(date +%s) - t0 )) s"
	else
		what="kernel as at patch $built"
	fi
	# W=1 on the C files this patch touches, warnings in its files fail.
	mapfile -t mine < <(files_of "$p" kernel)
	w=0
	for f in "${mine[@]}"; do
		case $f in *.c) ;; *) continue ;; esac
		o=${f%.c}.o
		[ -f "$wobj/$o" ] || continue
		rm -f "$wobj/$o"
		k -s W=1 "$o" >> "$log" 2>&1 || { echo "FAIL $p/$n W=1 $o"; rc=1; }
		w=$((w + 1))
	done
	warn=
	[ ${#mine[@]} -eq 0 ] || warn=$(grep -E 'warning:|error:' "$log" | grep -F "${mine[@]/#/-e}" | sort -u || true)
	if [ -n "$warn" ]; then
		echo "FAIL $p/$n W=1 warnings: $subject"
		echo "$warn" | head -10
		rc=1
	fi
	[ "$mode" = compile ] && what="$(( $(date +%s) - t0 )) s"
	echo "ok   $p/$n $what, W=1 on $w objects: $subject"
	# A layer boundary: the last of a layer's selftests patches.
	if [ "$mode" = full ] && selftests_only "$p" && { [ "$p" -eq "$n" ] || ! selftests_only $((p + 1)); }; then
		if [ "$p" -eq "$n" ]; then
			echo "     $p/$n layer boundary: the whole series, booted by make check"
			continue
		fi
		k -s bzImage headers -j"$jobs" >> "$log" 2>&1 || { echo "FAIL $p/$n bzImage"; rc=1; break; }
		mapfile -t targets < <("$top/scripts/series-selftests.sh" "$wt" "$c")
		[ ${#targets[@]} -gt 0 ] || { rc=1; break; }
		echo "     $p/$n layer boundary: booting with ${targets[*]}"
		if ! in_tree "$top/scripts/series-selftests-boot.sh" "$src" "$obj" "$d/boot-$p" \
			"series up to patch $p/$n ($(k -s kernelrelease))" "${targets[@]}" \
			> "$d/boot-$p.log" 2>&1; then
			tail -20 "$d/boot-$p.log"
			echo "FAIL $p/$n layer boundary: $subject"
			rc=1
			continue
		fi
		echo "ok   $p/$n layer boundary: $(tail -1 "$d/boot-$p.log")"
	fi
done
git -C "$src" worktree remove --force "$wt"
rm -rf "$wobj"
echo "bisect-check ($mode, prefixes $from to $to of $n): $( [ $rc -eq 0 ] && echo passed || echo FAILED ) in $(( $(date +%s) - start )) s"
exit $rc
