#!/bin/bash
# Build the selftests directories that a kernel tree carrying (a prefix of)
# the series has, with the kernel's own selftests Makefile (TARGETS=...,
# KHDR_INCLUDES), pack them with the harness's guest, boot the tree's
# kernel and run them: every collection but the *_lsm_off one in a normal
# boot, that one in a boot without the LSM.  Upstream's lsm runs in any case.
# Shared by series-apply-check.sh (a fresh tree) and bisect-check.sh (the
# layer boundaries of the series).
# usage: series-selftests-boot.sh SRC OBJ OUTDIR LABEL TARGET...
# (OBJ has the built kernel and "make headers"; TARGET: the directories
# under tools/testing/selftests, from series-selftests.sh)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
src=$1 obj=$2 d=$3 label=$4
shift 4
targets=("$@")
kst=$d/kselftest-root/kselftest
die() { echo "error: $*" >&2; exit 1; }

[ ${#targets[@]} -gt 0 ] || die "no selftests directory to run"

mkdir -p "$d"
rm -rf "$d/kselftest-root"
make -s -C "$src/tools/testing/selftests" O="$obj" TARGETS="${targets[*]}" \
	KHDR_INCLUDES="-isystem $obj/usr/include" USERLDFLAGS=-static \
	INSTALL_PATH="$kst" install > "$d/kselftest-build.log" 2>&1 ||
	{ tail -30 "$d/kselftest-build.log"; die "the selftests do not build ($d/kselftest-build.log)"; }
"$top/scripts/make-image.sh" "$src" "$obj" "$(dirname "$kst")" "$d/initramfs.cpio"

# These checks run outside CI, often beside other builds and boots on the
# same two cores: the suite that takes 90 s alone took more than boot.sh's
# 300 s beside a bisection and a trinity run (2026-12-06).  900 s still
# ends a hung guest.
boot() { BZIMAGE=$obj/arch/x86/boot/bzImage IMAGE=$d/initramfs.cpio LOGDIR=$d \
	BOOT_TIMEOUT=${BOOT_TIMEOUT:-900} KERNEL_LABEL="$label" "$top/scripts/boot.sh" check "$@"; }
rc=0
boot || rc=1
taps=("$d/kselftest.tap")
off=$(printf '%s\n' "${targets[@]}" | grep 'lsm_off$' || true)
if [ -n "$off" ]; then
	BOOT_NAME=nolsm boot hsuite="$off" lsm=landlock,lockdown,yama,nosuid || rc=1
	taps+=(boot="lsm without disablenetwork" "$d/kselftest-nolsm.tap")
fi
[ $rc -eq 0 ] || die "a boot did not finish"
awk -f "$top/scripts/tap-summary.awk" "${taps[@]}"
