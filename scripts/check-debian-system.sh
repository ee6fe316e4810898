#!/bin/bash
# make check-debian-system: build the Debian trixie image
# (scripts/debian-image.sh, with the packages of make deb) and boot it in
# QEMU with systemd as PID 1; "user" logs in on the serial console
# (agetty --autologin, login, PAM, logind) and the login shell runs
# debian-system/check.sh, which prints one PASS/FAIL line a check and
# "N passed, N failed", then powers the machine off.
# usage: check-debian-system.sh [DEB...]   (arguments go to debian-image.sh)
#   SKIP_IMAGE=1         boot the image the last run made
#   STOCK_KERNEL=1       trixie's own kernel (debian-image.sh)
#   STANDIN=nnp          setpriv --no-new-privs in place of nosuid in the
#                        setuid checks (check.sh), for a kernel without it
#   CHECK_TIMEOUT=secs   the whole boot and check (default 1500: TCG)
# Fails on a failed check, on no result, or on a timeout (with the last 30
# console lines).  Console: build/debian-system/console.log; the check's
# lines: build/debian-system/results.txt.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/debian-system
console=$out/console.log
timeout=${CHECK_TIMEOUT:-1500}
die() { echo "error: $*" >&2; exit 1; }
clean() { sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1b[a-zA-Z]//g; s/\r//g' "$console" 2>/dev/null; }
last30() {
	echo "--- last 30 console lines ($console) ---" >&2
	clean | tail -30 >&2
}

start=$(date +%s)
[ -n "${SKIP_IMAGE:-}" ] || "$top/scripts/debian-image.sh" "$@"
for f in disk.img vmlinuz kernel-version; do
	[ -r "$out/$f" ] || die "$out/$f missing: run scripts/debian-image.sh"
done
initrd=()
[ -r "$out/initrd.img" ] && initrd=(-initrd "$out/initrd.img")
args=
[ -n "${STANDIN:-}" ] && args="nosuid_check.standin=$STANDIN"

# TCG (no usable KVM on these machines: scripts/boot.sh), 2 CPUs.  The disk
# is a snapshot, so a second boot of the same image starts clean.  A NIC
# that reaches nothing (restrict=on), so that the initial namespace has
# more than lo; virtio-rng so that the boot does not wait for entropy.
rm -f "$console"
boot=$(date +%s)
qemu-system-x86_64 -accel tcg,thread=multi -smp 2 -m 2G -cpu max \
	-display none -monitor none -no-reboot -serial "file:$console" \
	-drive "file=$out/disk.img,format=raw,if=virtio,snapshot=on" \
	-device virtio-rng-pci \
	-netdev user,id=n0,restrict=on -device virtio-net-pci,netdev=n0 \
	-kernel "$out/vmlinuz" "${initrd[@]}" \
	-append "root=/dev/vda rw console=ttyS0 panic=-1 quiet $args" &
qpid=$!
trap 'kill "$qpid" 2>/dev/null || true' EXIT
echo "qemu: tcg, 2 CPUs, kernel $(cat "$out/kernel-version"); console: $console" >&2

# Wait for the summary, then for the guest's own poweroff.
summary='' login_at='' done_at=''
while kill -0 "$qpid" 2>/dev/null; do
	now=$(date +%s)
	[ -z "$login_at" ] && clean | grep -q '@@NOSUID-CHECK-START' && login_at=$now
	if [ -z "$summary" ]; then
		summary=$(clean | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1 || true)
		[ -n "$summary" ] && done_at=$now
	fi
	if [ $((now - boot)) -ge "$timeout" ]; then
		kill "$qpid"
		wait "$qpid" 2>/dev/null || true
		echo "error: the guest did not finish within ${timeout}s ($([ -n "$login_at" ] && echo "the checks started after $((login_at - boot)) s" || echo "no login yet"))" >&2
		last30
		exit 1
	fi
	if [ -n "$done_at" ] && [ $((now - done_at)) -ge 120 ]; then
		echo "warning: the guest did not power off within 120 s of its summary" >&2
		kill "$qpid"
		break
	fi
	sleep 2
done
wait "$qpid" 2>/dev/null || true
trap - EXIT
end=$(date +%s)
[ -n "$summary" ] || summary=$(clean | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1 || true)
if [ -z "$summary" ]; then
	echo "error: the guest stopped without a summary (panic, failed boot or login?)" >&2
	last30
	exit 1
fi

# The check's own lines (the console also carries the kernel's and
# systemd's); PASS/FAIL must agree with the summary.
clean | sed -n '/@@NOSUID-CHECK-START/,/^[0-9]* passed, [0-9]* failed$/p' |
	grep -E '^(PASS|FAIL|# )|passed, .* failed$' | tee "$out/results.txt"
read -r np _ nf _ <<< "$summary"
lp=$(clean | grep -c '^PASS ' || true)
lf=$(clean | grep -c '^FAIL ' || true)
up=$(clean | sed -n 's/.*@@NOSUID-CHECK-START uptime \([0-9.]*\)@@.*/\1/p' | head -1)
ue=$(clean | sed -n 's/.*@@NOSUID-CHECK-END uptime \([0-9.]*\)@@.*/\1/p' | head -1)
echo "times: image and boot $((end - start)) s; boot to login ${up:-?} s of guest uptime ($((${login_at:-$end} - boot)) s wall); checks $(echo "${ue:-0} - ${up:-0}" | bc) s; QEMU ran $((end - boot)) s" >&2
{ [ "$lp" = "$np" ] && [ "$lf" = "$nf" ]; } ||
	die "the summary ($summary) does not match the $lp PASS and $lf FAIL lines on the console"
[ "$np" -gt 0 ] || die "no check passed"
[ "$nf" -eq 0 ]
