#!/bin/bash
# Build the unpatched kernel: a worktree of build/$BASE/linux at tag "base"
# (the Debian tree without the series), with the patched kernel's .config;
# the series' options drop out in olddefconfig.  check-upstream and bench
# compare against it.  Prints the release and the build time.  With
# "prepare", only configures and prepares the tree: series-check then
# compiles the few objects sparse compares, not the whole kernel.
# usage: build-base.sh LOGFILE [prepare]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
src=$B/linux
base_src=$B/linux-base
base_obj=$B/obj-base
log=$1
target=bzImage
[ "${2:-}" = prepare ] && target=prepare
ccache=$(command -v ccache || true)
die() { echo "error: $*" >&2; exit 1; }

if [ "$(git -C "$base_src" rev-parse HEAD 2>/dev/null)" != "$(git -C "$src" rev-parse base)" ]; then
	git -C "$src" worktree remove --force "$base_src" 2>/dev/null || rm -rf "$base_src"
	git -C "$src" worktree prune
	git -C "$src" worktree add -q --detach "$base_src" base || die "worktree at base"
fi
mkdir -p "$base_obj"
cmp -s "$B/obj/.config" "$base_obj/.config.patched" || {
	cp "$B/obj/.config" "$base_obj/.config"
	cp "$B/obj/.config" "$base_obj/.config.patched"
}
start=$(date +%s)
make -C "$base_src" O="$base_obj" ARCH=x86_64 LOCALVERSION= \
	${ccache:+CC="ccache gcc"} -s olddefconfig $target -j"$(($(nproc) + 1))" \
	> "$log" 2>&1 ||
	{ tail -20 "$log"; die "the unpatched kernel did not build ($log)"; }
echo "unpatched kernel: $(make -s -C "$base_src" O="$base_obj" kernelrelease) ${target/bzImage/built} in $(( $(date +%s) - start )) s"
