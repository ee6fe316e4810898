#!/bin/bash
# make fuzz CALLS=1000000 [SEED=N] [CALLS_PER_ROUND=128] [PART_CALLS=100000]:
# the project's fuzzer (selftests/fuzz) for a long run on the debug kernel,
# in parts of about PART_CALLS calls, until the fuzzers counted CALLS;
# after each part the guest checks the invariants (the fuzzer's own, then
# uid 1000's nosuid namespace charge back to zero) and the kernel log
# (initramfs/fuzz-guest.sh).  The host scans the whole console for kernel
# reports at the end.  Prints the seed: "make fuzz SEED=S CALLS=C" replays
# the run, and a failed round prints its own one-round replay.
# make trinity SECS=1800 [SEED=N]: Debian's trinity as uid 1000, SECS
# seconds each way (behind nosuid and a closed gate; in a nosuid network
# namespace; unrestricted with the gate's static key on), on the debug
# kernel.  trinity comes from Debian's package (host apt sources, not
# changed), with the shared libraries it needs, in an extra initramfs
# appended to the test image.
# Not in CI: both run for an hour or more.  Logs in build/$BASE/fuzz/.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
mode=${1:-fuzz}
out=$B/fuzz/$mode
die() { echo "error: $*" >&2; exit 1; }
bz=$B/obj-debug/arch/x86/boot/bzImage
[ -f "$bz" ] || die "no debug kernel: run make check-debug first"
[ -f "$B/initramfs.cpio" ] || die "no test image: run make first"
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
case $seed in '' | *[!0-9]*) die "SEED=$seed: a whole number" ;; esac
rm -rf "$out"
mkdir -p "$out/root"

# The extra initramfs: the guest script, the report patterns, and for
# trinity its binary and libraries.
list=$out/extra.list
{
	echo "dir /usr/share/nosuid 0755 0 0"
	echo "file /usr/share/nosuid/fuzz-guest.sh $top/initramfs/fuzz-guest.sh 0755 0 0"
	echo "file /usr/share/nosuid/kernel-reports $out/kernel-reports 0644 0 0"
	echo "file /usr/share/nosuid/kernel-not-reports $out/kernel-not-reports 0644 0 0"
} > "$list"
printf '%s\n' "$KERNEL_REPORTS" > "$out/kernel-reports"
printf '%s\n' "$KERNEL_NOT_REPORTS" > "$out/kernel-not-reports"
if [ "$mode" = trinity ]; then
	deb_dir=$B/fuzz/deb
	mkdir -p "$deb_dir"
	if ! ls "$deb_dir"/trinity_*.deb > /dev/null 2>&1; then
		(cd "$deb_dir" && apt-get download trinity > download.log 2>&1) ||
			die "apt-get download trinity failed: $(tail -1 "$deb_dir/download.log")"
	fi
	deb=$(ls "$deb_dir"/trinity_*.deb | tail -1)
	rm -rf "$out/trinity" && dpkg-deb -x "$deb" "$out/trinity" ||
		die "dpkg-deb -x $deb failed"
	bin=$out/trinity/usr/bin/trinity
	[ -x "$bin" ] || die "$deb has no usr/bin/trinity"
	echo "file /usr/local/bin/trinity $bin 0755 0 0" >> "$list"
	# Its shared libraries, at the paths the host's loader gives them.
	ldd "$bin" | awk '/=> \//{ print $3 } /^\t\/[^ ]*ld-linux/{ print $1 }' |
	while read -r lib; do
		d=$(dirname "$lib")
		while [ "$d" != / ]; do echo "dir $d 0755 0 0"; d=$(dirname "$d"); done | tac
		echo "file $lib $(readlink -f "$lib") 0755 0 0"
	done | awk '!seen[$0]++' >> "$list"
	version=$(dpkg-deb -f "$deb" Version)
	echo "trinity: Debian package $version"
fi
(cd "$B/obj" && "$B/linux/usr/gen_initramfs.sh" -o "$out/extra.cpio" "$list" \
	-u squash -g squash) || die "could not pack $list"
cat "$B/initramfs.cpio" "$out/extra.cpio" > "$out/image.cpio"

if [ "$mode" = fuzz ]; then
	calls=${CALLS:-1000000}
	per=${CALLS_PER_ROUND:-128}
	part=${PART_CALLS:-100000}
	case $calls$per$part in *[!0-9]*) die "CALLS, CALLS_PER_ROUND and PART_CALLS are whole numbers" ;; esac
	# A round makes its CALLS_PER_ROUND fuzzed calls and a few of set-up;
	# a part is rounded up to whole rounds, so CALLS=10^6 is 10 parts.
	rounds=$(( (part + per - 1) / per ))
	[ "$rounds" -gt 0 ] || die "PART_CALLS=$part is less than a round"
	parts=$(( (calls + rounds * per - 1) / (rounds * per) ))
	# The guest adds up to two parts while the fuzzers counted fewer than
	# CALLS (rounds that end early make a part about 97% of its nominal).
	cmd="/usr/share/nosuid/fuzz-guest.sh fuzz $seed $parts $rounds $per $calls"
	limit=$(( (parts + 2) * 1800 + 600 ))
	echo "fuzz: seed $seed, $parts parts of $rounds rounds of $per calls (about $((parts * rounds * per)) calls)"
else
	secs=${SECS:-1800}
	case $secs in '' | *[!0-9]*) die "SECS=$secs: a whole number" ;; esac
	cmd="/usr/share/nosuid/fuzz-guest.sh trinity $seed $secs"
	limit=$((3 * secs + 900))
fi
# trinity toggles static keys (perf_event_open()) thousands of times:
# single-threaded TCG, where a vCPU cannot run a stale int3 (boot.sh).
single=
[ "$mode" = trinity ] && single=1
start=$(date +%s)
QEMU_TCG_SINGLE=$single BZIMAGE=$bz IMAGE=$out/image.cpio LOGDIR=$out BOOT_TIMEOUT=$limit \
	KERNEL_LABEL="debug kernel ($(cat "$B/obj-debug/include/config/kernel.release"))" \
	KERNEL_LOGLEVEL=loglevel=7 "$top/scripts/boot.sh" root \
	"hcmd=$(printf '%s' "$cmd" | base64 -w0)" > "$out/guest.txt"
rc=$?
cat "$out/guest.txt"
secs_run=$(( $(date +%s) - start ))
console=$out/console-root.log
found=$(kernel_reports "$console" || true)
if [ -n "$found" ]; then
	echo "error: the debug kernel reported problems ($console):" >&2
	echo "$found" | head -20 >&2
	rc=1
fi
if [ "$mode" = fuzz ]; then
	total=$(sed -n 's/.*rounds: \([0-9]*\) calls in.*/\1/p' "$out/guest.txt" | awk '{ s += $1 } END { print s + 0 }')
	broke=$(sed -n 's/.*fuzz: \([0-9]*\) of [0-9]* rounds broke.*/\1/p' "$out/guest.txt" | awk '{ s += $1 } END { print s + 0 }')
	echo "fuzz: $total calls in $secs_run s, seed $seed: $broke rounds broke the contract, $(echo -n "$found" | grep -c .) kernel report lines (replay: make fuzz SEED=$seed CALLS=${CALLS:-1000000})"
else
	echo "trinity: 3 x $secs s, seed $seed, in $secs_run s: $(echo -n "$found" | grep -c .) kernel report lines"
fi
grep -q '^fuzz-guest: ok' "$out/guest.txt" || rc=1
exit $rc
