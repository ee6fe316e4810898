#!/bin/bash
# make soak N=20 DEBUG_N=5: boot the already-built normal and debug kernels
# again and again with the whole suite, and print per test how often it
# failed: the suite's flake rate, measured.  Nothing is retried: a test
# that failed once in N boots is reported as 1/N.  Each boot's TAP and
# console are kept in build/$BASE/soak/; the debug boots are also scanned for
# kernel reports, as check-debug does.
# Exit status: 0 when every test passed in every boot, no boot hung and no
# debug boot reported anything.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
n=${N:-20}
dn=${DEBUG_N:-5}
out=$B/soak
die() { echo "error: $*" >&2; exit 1; }
[ -f "$B/obj/arch/x86/boot/bzImage" ] || die "no normal kernel: run make first"
[ "$dn" -eq 0 ] || [ -f "$B/obj-debug/arch/x86/boot/bzImage" ] ||
	die "no debug kernel: run make check-debug first (or DEBUG_N=0)"
rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)
hung=0 reports=0
boot_one() {	# KIND INDEX
	local kind=$1 i=$2 dir=$out/$1-$2 t=$(date +%s)
	mkdir -p "$dir"
	if [ "$kind" = normal ]; then
		LOGDIR=$dir "$top/scripts/boot.sh" check > "$dir/boot.txt" 2>&1
	else
		BZIMAGE=$B/obj-debug/arch/x86/boot/bzImage LOGDIR=$dir \
			BOOT_TIMEOUT=1500 KERNEL_LOGLEVEL=loglevel=7 \
			"$top/scripts/boot.sh" check \
			NOSUID_FUZZ_ITERATIONS=${DEBUG_FUZZ_ITERATIONS:-300} \
			> "$dir/boot.txt" 2>&1
	fi || { echo "soak: $kind boot $i did not finish:"; tail -5 "$dir/boot.txt"; hung=$((hung + 1)); }
	if [ "$kind" = debug ] && kernel_reports "$dir/console-check.log" > "$dir/reports.txt"; then
		echo "soak: debug boot $i: kernel report:"
		head -5 "$dir/reports.txt"
		reports=$((reports + 1))
	fi
	[ -f "$dir/kselftest.tap" ] &&
		awk -v boot="$kind" -f "$top/scripts/tap-summary.awk" "$dir/kselftest.tap" > "$dir/summary.txt"
	echo "soak: $kind boot $i: $(tail -1 "$dir/summary.txt" 2>/dev/null || echo 'no result'), $(( $(date +%s) - t )) s"
}
for i in $(seq "$n"); do boot_one normal "$i"; done
for i in $(seq "$dn"); do boot_one debug "$i"; done
# Per test: failures out of the boots that ran it.
cat "$out"/*/summary.txt 2>/dev/null | awk '
	/^(PASS|FAIL|SKIP) / { k = $1; $1 = ""; t = substr($0, 2); runs[t]++; if (k == "FAIL") fails[t]++; if (k == "SKIP") skips[t]++ }
	END {
		for (t in runs) { total++; if (fails[t]) { flaky++; printf "FLAKY %d/%d %s\n", fails[t], runs[t], t } }
		printf "soak: %d tests over the boots, %d failed at least once\n", total, flaky
		exit flaky > 0
	}' | sort
frc=${PIPESTATUS[1]}
echo "soak: $n normal and $dn debug boots in $(( $(date +%s) - start )) s; $hung did not finish, $reports debug boots with kernel reports"
[ "$frc" -eq 0 ] && [ "$hung" -eq 0 ] && [ "$reports" -eq 0 ]
