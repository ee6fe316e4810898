#!/bin/bash
# Boot the test kernel in QEMU and report what the guest did.
#
# usage: boot.sh MODE [KERNEL-ARG...]
#   check  run the kselftests; print each result and "N passed, N failed,
#          N skipped"; fail on any failure, on nothing run, on no result
#   cmd    run the kernel argument hcmd=<base64 command> as the unprivileged
#          user; exit with its status
#   root   the same, as root
#   demo   run the scripted scenario as the unprivileged user
#   shell  interactive shell as the unprivileged user
# The guest's result is the console line "@@HARNESS-EXIT <rc>@@", confirmed
# by QEMU's isa-debug-exit status (rc * 2 + 1).  A timeout, a panic or a
# missing marker fails and shows the last 40 console lines.
set -uo pipefail
mode=$1
shift
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
# BZIMAGE, IMAGE and LOGDIR let a second worker boot its own kernel/image;
# KERNEL_LOGLEVEL replaces "quiet" (check-debug shows every message);
# KERNEL_LABEL says which kernel that is; QEMU_SMP the number of CPUs (2);
# QEMU_TCG_SINGLE=1 single-threaded TCG (make trinity).
bzimage=${BZIMAGE:-$B/obj/arch/x86/boot/bzImage}
image=${IMAGE:-$B/initramfs.cpio}
logdir=${LOGDIR:-$B}
console=$logdir/console-$mode.log
out=$logdir/output-$mode.log
[ "$mode" = check ] && out=$logdir/kselftest${BOOT_NAME:+-$BOOT_NAME}.tap
[ -n "${BOOT_NAME:-}" ] && console=$logdir/console-$mode-$BOOT_NAME.log
timeout=${BOOT_TIMEOUT:-300}
[ "$mode" = probe ] && timeout=30

for f in "$bzimage" "$image"; do
	[ -r "$f" ] || { echo "error: $f missing: run 'make' first" >&2; exit 1; }
done

qemu() {	# ACCEL TIMEOUT MODE APPEND...
	local accel=$1 limit=$2 m=$3
	shift 3
	local serial0=(-serial "file:$console")
	[ "$m" = shell ] && serial0=(-serial mon:stdio)
	rm -f "$console" "$out"
	# QEMU_ICOUNT=1: guest time counts instructions (1 ns each), for
	# repeatable cost measurements; it needs single-threaded TCG.
	local icount=()
	[ -n "${QEMU_ICOUNT:-}" ] && accel=tcg icount=(-icount shift=0,sleep=off)
	timeout --foreground -k 5 "$limit" qemu-system-x86_64 \
		-accel "$accel" "${icount[@]}" -smp "${QEMU_SMP:-2}" -m 1G -display none -monitor none \
		-no-reboot "${serial0[@]}" -serial "file:$out" \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-kernel "$bzimage" -initrd "$image" \
		-append "console=ttyS0 panic=-1 oops=panic ${KERNEL_LOGLEVEL:-quiet} hmode=$m $*"
}

# KVM only when it really runs a guest: on these machines /dev/kvm exists
# but the CPU has no vmx/svm and a KVM guest hangs after the BIOS.
accel_file=$B/accel
if [ "$mode" != probe ] && [ ! -s "$accel_file" ]; then
	accel=tcg,thread=multi
	if ! grep -qwE 'vmx|svm' /proc/cpuinfo; then
		why="no vmx/svm CPU flag"
	elif [ ! -w /dev/kvm ]; then
		why="/dev/kvm not usable"
	elif "$0" probe >/dev/null 2>&1; then
		accel=kvm why="KVM probe boot succeeded"
	else
		why="KVM probe boot failed"
	fi
	echo "$accel $why" > "$accel_file"
fi
if [ "$mode" = probe ]; then
	accel=kvm
else
	read -r accel why < "$accel_file"
	# QEMU_TCG_SINGLE=1: one host thread for all vCPUs.  Long fuzzing
	# toggles static keys (trinity's perf_event_open()) far more than the
	# suite, and multi-threaded TCG can run a stale int3 at such a site
	# (DESIGN.md, Harness); single-threaded TCG cannot.
	[ -n "${QEMU_TCG_SINGLE:-}" ] && [ "${accel%%,*}" = tcg ] && accel=tcg,thread=single why="$why; single-threaded"
	echo "qemu: ${accel%%,*} ($why), ${KERNEL_LABEL:-$(cat "$B/kernel-version.txt" 2>/dev/null)}" >&2
fi

start=$(date +%s.%N)
qemu "$accel" "$timeout" "$mode" "$@"
qrc=$?
# Multi-threaded TCG (QEMU 7.2 here) now and then lets a vCPU execute the
# int3 that text_poke_bp() put at a static-key site after the patching
# (and its IPI sync) finished: "Oops: int3" in a function that only had a
# jump label toggled by someone else.  That is the emulator's cross-CPU
# code coherence, not the kernel: say so, keep the console, retry (twice:
# on 2026-12-04 three boots of four in a row hit it).
for retry in 1 2; do
	[ "$mode" != shell ] && [ -f "$console" ] &&
		! grep -q '@@HARNESS-EXIT' "$console" && grep -q '^Oops: int3' "$console" || break
	cp "$console" "$console.int3.$retry"
	echo "warning: QEMU TCG executed a stale int3 at a patched static-key site (console kept in $console.int3.$retry); booting again ($retry of 2)" >&2
	qemu "$accel" "$timeout" "$mode" "$@"
	qrc=$?
done
secs=$(echo "$(date +%s.%N) - $start" | bc)

fail() {
	echo "error: $*" >&2
	echo "--- last 40 console lines ($console) ---" >&2
	[ -f "$console" ] && sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1b[a-zA-Z]//g; s/\r//g' \
		"$console" | tail -40 >&2
	exit 1
}
marker=
[ "$mode" = shell ] || marker=$(sed 's/\r//g' "$console" 2>/dev/null |
	sed -n 's/.*@@HARNESS-EXIT \([0-9]*\)@@.*/\1/p' | tail -1)
if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	fail "the VM did not finish within ${timeout}s (hang?)"
fi
if [ "$mode" = shell ]; then
	[ $((qrc & 1)) -eq 1 ] && exit $((qrc >> 1))
	exit 0
fi
[ -n "$marker" ] || fail "the VM stopped (qemu status $qrc) without reporting a result: kernel panic or init crash?"
if [ "$qrc" -ne $((marker * 2 + 1)) ]; then
	fail "guest reported $marker but QEMU exited with $qrc (expected $((marker * 2 + 1)))"
fi
case "$mode" in
probe) exit 0 ;;
check)
	echo "guest finished in ${secs%.*} s; TAP log: $out" >&2
	exit 0
	;;
*)
	cat "$out"
	exit "$marker"
	;;
esac
