#!/bin/bash
# make config-matrix: what the kernel test robot would try.  For each
# variant, the test config with one option turned off; build only the
# objects the series touches, with W=1, and fail on any warning in them.
# usage: config-matrix.sh (from the top of the project, after "make")
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
src=$B/linux
ccache=$(command -v ccache || true)
# A variant "A+B" turns off A and the options of the test config that
# select A (Landlock selects SECURITY_NETWORK, PROC_SYSCTL selects SYSCTL).
# MATRIX_VARIANTS="KEYS" runs a subset.
variants=${MATRIX_VARIANTS:-"SECURITY_DISABLENETWORK SECURITY_NETWORK+SECURITY_LANDLOCK IO_URING NET_NS NET SYSCTL+PROC_SYSCTL PROC_FS SECURITY KEYS"}
# The C files and headers the series changes.
files=$(git -C "$src" diff --name-only base HEAD -- '*.c' '*.h' | grep -v '^tools/')
rc=0
for v in $variants; do
	obj=$B/matrix/$v
	mkdir -p "$obj"
	cp "$B/obj/.config" "$obj/.config"
	for o in ${v//+/ }; do
		"$src/scripts/config" --file "$obj/.config" --disable "$o"
	done
	k() { make -C "$src" O="$obj" ARCH=x86_64 LOCALVERSION= ${ccache:+CC="ccache gcc"} "$@"; }
	k -s olddefconfig > "$obj/build.log" 2>&1
	if grep -q "^CONFIG_${v%%+*}=y" "$obj/.config"; then
		echo "skip CONFIG_${v%%+*}: another option of the test config selects it"
		continue
	fi
	start=$(date +%s)
	k -j"$(($(nproc) + 1))" -s prepare >> "$obj/build.log" 2>&1 || {
		echo "FAIL $v: make prepare"; tail -5 "$obj/build.log"; rc=1; continue; }
	# A full build says which of the series' objects this config has;
	# those are then built again, alone, with W=1.
	k -s -j"$(($(nproc) + 1))" vmlinux >> "$obj/build.log" 2>&1 ||
		{ echo "FAIL $v: vmlinux does not build"; grep -E 'error' "$obj/build.log" | head -5; rc=1; continue; }
	n=0
	for f in $(echo "$files" | grep '\.c$'); do
		o=${f%.c}.o
		[ -f "$obj/$o" ] || continue
		rm -f "$obj/$o"
		k -s W=1 "$o" >> "$obj/build.log" 2>&1 || { echo "FAIL $v: $o"; rc=1; }
		n=$((n + 1))
	done
	warn=$(grep -E 'warning:|error:' "$obj/build.log" | grep -F "$files" | sort -u)
	if [ -n "$warn" ]; then
		echo "FAIL $v: warnings"; echo "$warn" | head -10; rc=1
	else
		echo "ok   CONFIG_${v//+/=n CONFIG_}=n: vmlinux builds; $n of the series' objects rebuilt with W=1, no warning ($(( $(date +%s) - start )) s)"
	fi
done
exit $rc
