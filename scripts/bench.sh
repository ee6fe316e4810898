#!/bin/bash
# make bench: the cost of the series, against the unpatched kernel (same
# tree, same config) and against seccomp, Landlock and user namespaces.
# Boots, each on one CPU with bench/bench.c as root:
#   base1, base2  the unpatched kernel, twice: the A/A noise floor
#   series        the patched kernel
#   series-nolsm  the patched kernel with disablenetwork left out of lsm=:
#                 what remains is what any new LSM costs (one more static
#                 call slot at every hook site), not the series' hooks
# under QEMU "-icount shift=0,sleep=off" (guest time counts instructions:
# deterministic on a shared machine), then base and series without
# -icount, interleaved, BENCH_WALLS times each, for wall-clock medians.  Writes build/$BASE/bench/RESULTS.md.
# Every boot has "norandmaps": with randomized layouts, fork and exec touch
# a different number of page-table pages from sample to sample.
# Each of those is BENCH_ROUNDS boots (default 3), each with another value
# of an unused kernel argument, bench.round=N: -icount repeats a boot
# exactly, so the same boot twice would always agree, while two kernels
# differ by where timers, hash seeds and random numbers fall, which moves
# TCP connect, fork and exec by up to 0.3 % from boot to boot.  The table
# takes, per operation, the smallest of the rounds' minimums.
# BENCH_SCALE multiplies the sample counts (default 1).  BENCH_ONLY=storm
# runs only the namespace storm, BENCH_STORMS times (below).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
out=$B/bench
die() { echo "error: $*" >&2; exit 1; }
mkdir -p "$out"
start=$(date +%s)

"$top/scripts/build-base.sh" "$out/base-build.log" || exit 1

hcmd=$(printf 'bench %s' "${BENCH_SCALE:-1}" | base64 -w0)
# boot() passes $hcmd and $QEMU_SMP (1 unless set for one boot) through.
boot() {	# NAME OBJ ICOUNT [KERNEL-ARG...]
	local name=$1 obj=$2 icount=$3 t=$(date +%s)
	shift 3
	rm -rf "${out:?}/$name"
	mkdir -p "$out/$name"
	QEMU_ICOUNT=$icount QEMU_SMP=${QEMU_SMP:-1} BZIMAGE=$obj/arch/x86/boot/bzImage \
		KERNEL_LABEL="$name: $(cat "$obj/include/config/kernel.release")" \
		LOGDIR=$out/$name BOOT_TIMEOUT=1200 \
		"$top/scripts/boot.sh" root "hcmd=$hcmd" norandmaps "$@" > "$out/$name.txt" ||
		die "the bench did not finish on $name (see $out/$name.txt)"
	grep -q '^# bench: done' "$out/$name.txt" ||
		die "the bench stopped early on $name: $(tail -3 "$out/$name.txt")"
	echo "bench: $name done in $(( $(date +%s) - t )) s"
}
# BENCH_ONLY=storm: only the namespace storm, BENCH_STORMS boots of it
# (default 2, each with another bench.round), to see whether it gives the
# same picture twice: one line per boot, medians and storm/spin.
if [ "${BENCH_ONLY:-}" = storm ]; then
	hcmd=$(printf 'bench storm' | base64 -w0)
	for s in $(seq "${BENCH_STORMS:-2}"); do
		QEMU_SMP=2 boot "storm-s$s" "$B/obj" 1 "bench.round=$s"
		awk -v run="$s" '$1 == "R" && $2 == "storm" { m[$3] = $6; e[$3] = $4 }
			END { printf "storm run %d: median alone %d (%s), spin %d (%s), storm %d (%s); storm/spin %.2f\n",
				run, m["alone"], e["alone"], m["spin"], e["spin"], m["storm"], e["storm"],
				m["spin"] ? m["storm"] / m["spin"] : 0 }' "$out/storm-s$s.txt" |
			tee -a "$out/storm-runs.txt"
	done
	exit 0
fi
rounds=${BENCH_ROUNDS:-3}
nolsm="lsm=$(sed -n 's/^CONFIG_LSM="\(.*\)"/\1/p' "$B/obj/.config" | sed 's/disablenetwork,\{0,1\}//')"
for r in $(seq "$rounds"); do
	boot "base1-r$r" "$B/obj-base" 1 "bench.round=$r"
	boot "base2-r$r" "$B/obj-base" 1 "bench.round=$((r + rounds))"
	boot "series-r$r" "$B/obj" 1 "bench.round=$r"
	boot "series-nolsm-r$r" "$B/obj" 1 "bench.round=$r" "$nolsm"
done
# Wall clock: BENCH_WALLS boots of each kernel (default 5), interleaved so
# that a change in the host's load falls on both alike.
walls=${BENCH_WALLS:-5}
for w in $(seq "$walls"); do
	boot "base-wall-w$w" "$B/obj-base" "" "bench.round=$w"
	boot "series-wall-w$w" "$B/obj" "" "bench.round=$w"
done
# The namespace storm: two CPUs as in the selftest, -icount, the series.
storm_hcmd=$(printf 'bench storm' | base64 -w0)
QEMU_SMP=2 hcmd=$storm_hcmd boot storm "$B/obj" 1

python3 "$top/scripts/bench-table.py" "$out" "$rounds" "$walls" \
	"$(cat "$B/obj-base/include/config/kernel.release")" \
	"$(cat "$B/kernel-version.txt")" > "$out/RESULTS.md" ||
	die "bench-table.py failed"
cat "$out/RESULTS.md"
echo "bench: $out/RESULTS.md written in $(( $(date +%s) - start )) s (copy it to bench/RESULTS.md to record it)"
