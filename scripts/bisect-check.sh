#!/bin/bash
# make bisect-check: every commit of the series must build and boot on its
# own.  Each commit base..HEAD of build/linux is checked out in a worktree
# and built with the test config (options that do not exist yet at that
# commit are dropped by olddefconfig), then booted with the current image
# running a trivial command; the boot must reach the harness marker.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=$top/build
src=$B/linux
wt=$B/bisect-src
obj=$B/bisect-obj
ccache=$(command -v ccache || true)
[ -d "$src/.git" ] && [ -r "$B/initramfs.cpio" ] ||
	{ echo "error: run 'make' first" >&2; exit 1; }
git -C "$src" worktree remove --force "$wt" 2>/dev/null || true
git -C "$src" worktree add -q --detach "$wt" base
mkdir -p "$obj"
fail=0
for c in $(git -C "$src" rev-list --reverse base..HEAD); do
	subject=$(git -C "$src" log -1 --format=%s "$c")
	git -C "$wt" checkout -q "$c"
	cp "$B/obj/.config" "$obj/.config"
	log=$obj/build-$c.log
	start=$(date +%s)
	if ! make -C "$wt" O="$obj" ARCH=x86_64 LOCALVERSION= \
		${ccache:+CC="ccache gcc"} -s olddefconfig bzImage \
		-j"$(($(nproc) + 1))" > "$log" 2>&1; then
		echo "FAIL build  $subject (see $log)"
		tail -5 "$log"
		fail=1
		continue
	fi
	if BZIMAGE=$obj/arch/x86/boot/bzImage LOGDIR=$obj \
		"$top/scripts/boot.sh" cmd "hcmd=$(printf true | base64 -w0)" \
		> "$obj/boot-$c.log" 2>&1; then
		echo "ok   build+boot $(( $(date +%s) - start ))s  $subject"
	else
		echo "FAIL boot   $subject (see $obj/boot-$c.log)"
		fail=1
	fi
done
git -C "$src" worktree remove --force "$wt"
exit $fail
