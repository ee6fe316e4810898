#!/bin/bash
# make check-debug: boot the debug kernel (KASAN, KFENCE, UBSAN, lockdep,
# ...) with the project's whole suite, kernel messages visible, and fail on
# any failed test or any report of the kernel's checkers on the console.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
obj=$B/obj-debug
mkdir -p "$B/debug"
rc=0
# "quiet" would hide lockdep and KASAN (KERN_WARNING and below); the suite
# is several times slower under KASAN.  The fuzzer does 300 rounds here
# (about 9,600 calls at 171 calls/s, instead of 1000 rounds in 3 minutes):
# CI runs this after make check, which fuzzes the full 1000 rounds; the
# environment variable reaches the tests through init's environment.
BZIMAGE=$obj/arch/x86/boot/bzImage LOGDIR=$B/debug BOOT_TIMEOUT=1500 \
	KERNEL_LABEL="debug kernel ($(cat "$obj/include/config/kernel.release"))" \
	KERNEL_LOGLEVEL=loglevel=7 "$top/scripts/boot.sh" check \
	NOSUID_FUZZ_ITERATIONS=${DEBUG_FUZZ_ITERATIONS:-300} || rc=1
console=$B/debug/console-check.log
if [ -f "$console" ]; then
	found=$(kernel_reports "$console" || true)
	if [ -n "$found" ]; then
		echo "error: the debug kernel reported problems ($console):" >&2
		echo "$found" | head -20 >&2
		rc=1
	else
		echo "debug kernel: no BUG/WARNING/KASAN/UBSAN/KFENCE/lockdep/RCU/refcount report in $(wc -l < "$console") console lines"
	fi
fi
[ -f "$B/debug/kselftest.tap" ] || exit 1
awk -v boot=debug -f "$top/scripts/tap-summary.awk" "$B/debug/kselftest.tap" || rc=1
exit $rc
