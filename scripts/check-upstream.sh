#!/bin/bash
# make check-upstream: the kernel's own kselftests for the areas the series
# touches, built once from the patched tree, run on the unpatched kernel
# (the same config, series left out: a worktree at tag "base") and on the
# patched one.  A test that passes on the unpatched kernel and does not on
# the patched one is a regression and fails the run.
# usage: check-upstream.sh TARGET...
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
src=$B/linux
out=$B/upstream
base_obj=$B/obj-base
kst=$out/kselftest-root/kselftest
die() { echo "error: $*" >&2; exit 1; }
mkdir -p "$out"

# 1. The selftests, static (the guest has no libc), from the patched tree.
rm -rf "$out/kselftest-root"
echo "upstream selftests: building $*"
make -s -C "$src/tools/testing/selftests" O="$B/obj" TARGETS="$*" \
	KHDR_INCLUDES="-isystem $B/obj/usr/include" USERLDFLAGS=-static \
	INSTALL_PATH="$kst" install > "$out/build.log" 2>&1 ||
	{ tail -30 "$out/build.log"; die "building the upstream selftests failed ($out/build.log)"; }
# seccomp_benchmark compares timings ("a ≈ b"): under TCG that is noise,
# not a property of either kernel, and it takes minutes.  Left out.
sed -i '/^seccomp:seccomp_benchmark$/d' "$kst/kselftest-list.txt"
(cd "$B/obj" && "$src/usr/gen_initramfs.sh" -o "$out/initramfs.cpio" \
	"$B/initramfs.list" -u squash -g squash "$out/kselftest-root") ||
	die "gen_initramfs failed"

# 2. The unpatched kernel: same .config, options of the series drop out.
"$top/scripts/build-base.sh" "$out/base-build.log" || exit 1

# 3. Boot both with the same image.
rc=0
for k in base:$base_obj series:$B/obj; do
	name=${k%%:*} obj=${k#*:}
	mkdir -p "$out/$name"
	BZIMAGE=$obj/arch/x86/boot/bzImage IMAGE=$out/initramfs.cpio \
		KERNEL_LABEL="$name kernel ($(cat "$obj/include/config/kernel.release"))" \
		LOGDIR=$out/$name BOOT_TIMEOUT=1200 "$top/scripts/boot.sh" check ||
		die "the $name kernel did not finish the upstream selftests"
	awk -f "$top/scripts/tap-summary.awk" "$out/$name/kselftest.tap" \
		> "$out/$name.results"
	echo "$name: $(tail -1 "$out/$name.results")"
done

# 4. Compare: every test that passed without the series must pass with it.
regressions=$(awk '
	FNR == 1 { file++ }
	/^PASS / { name = substr($0, 6); if (file == 1) base[name] = 1; else ok[name] = 1 }
	/^(FAIL|SKIP) / { if (file == 2) seen[substr($0, 6)] = $1 }
	END { for (n in base) if (!(n in ok)) print (n in seen ? seen[n] : "MISSING"), n }
' "$out/base.results" "$out/series.results" | sort)
newpass=$(awk 'FNR == 1 { file++ }
	/^PASS / { if (file == 1) base[substr($0, 6)] = 1; else if (!(substr($0, 6) in base)) n++ }
	END { print n + 0 }' "$out/base.results" "$out/series.results")
if [ -n "$regressions" ]; then
	echo "error: passed without the series, not with it:" >&2
	echo "$regressions" | sed 's/^/  /' >&2
	rc=1
else
	echo "no regression: every test that passes on the unpatched kernel passes on the patched one ($newpass pass only with the series)"
fi
exit $rc
