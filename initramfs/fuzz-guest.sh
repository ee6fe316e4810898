#!/bin/sh
# The guest side of make fuzz and make trinity (scripts/fuzz.sh), run as
# root on the debug kernel; every line it prints reaches the host.
#   fuzz-guest.sh fuzz SEED PARTS ROUNDS CALLS [TARGET]
#       the project's fuzzer (kselftest nosuid_fuzz), PARTS parts of ROUNDS
#       rounds of CALLS calls each (split between one fuzzer per CPU), and
#       up to two more while the calls the fuzzers counted are fewer than
#       TARGET (a round ends early when its child execs or dies: a part
#       makes about 97% of its nominal calls), numbered on so that
#       "--seed SEED --round R" replays any round.  After each part: the
#       fuzzer's own invariants (no privilege regained, nothing through the
#       gate, state read back after every call), uid 1000's
#       max_nosuid_net_namespaces charge back to zero, and the kernel log.
#   fuzz-guest.sh trinity SEED SECONDS
#       trinity as uid 1000 for SECONDS each, three ways: behind nosuid and
#       a closed gate; in a nosuid network namespace; unrestricted while
#       another task's closed gate holds the static key on.
# Ends with "fuzz-guest: ok" or "fuzz-guest: FAILED", and that status.
reports=$(cat /usr/share/nosuid/kernel-reports)
not_reports=$(cat /usr/share/nosuid/kernel-not-reports)
limit=/proc/sys/user/max_nosuid_net_namespaces
fail=0
say() { echo "fuzz-guest: $*"; }
bad() { say "FAIL $*"; fail=1; }
as_user() { HOME=/tmp USER=user LOGNAME=user as-user "$@"; }
kernel_reports() { dmesg | grep -E "$reports" | grep -cvE "$not_reports"; }

# Run "$@" with user.max_nosuid_net_namespaces at 1, then put it back.
at_limit_1() {
	local old rc
	old=$(cat $limit)
	echo 1 > $limit
	"$@"
	rc=$?
	echo "$old" > $limit
	return $rc
}

# One nosuid namespace for uid 1000 under a limit of 1: it succeeds only if
# nothing of the user's is still charged.  Teardown is asynchronous
# (cleanup_net), so the charge may take a while to come back.
one_namespace_within() {	# WAIT-SECONDS
	local i=0
	while [ $i -le "$1" ]; do
		as_user nosuid unshare -n true 2> /dev/null && return 0
		i=$((i + 1))
		sleep 1
	done
	return 1
}
charge_is_zero() { at_limit_1 one_namespace_within "$1"; }

# The probe's control: with one namespace held, a second is refused.
second_is_refused() {
	local rc=1
	# as-user, nosuid and unshare each exec the next: $! ends as sleep.
	HOME=/tmp as-user nosuid unshare -n sleep 30 &
	holder=$!
	sleep 2
	as_user nosuid unshare -n true 2> /dev/null || rc=0
	kill $holder 2> /dev/null
	wait $holder
	return $rc
}
probe_can_fail() { at_limit_1 second_is_refused; }

# Toggling the netstamp jump label under QEMU's multi-threaded TCG can
# kill the guest (initramfs/netstamp-hold.c): hold it on, as make check does.
netstamp-hold &
hold=$!
say "kernel $(uname -r), $(nproc) CPUs, tainted=$(cat /proc/sys/kernel/tainted)"
before=$(kernel_reports)

case "$1" in
fuzz)
	seed=$2 parts=$3 rounds=$4 calls=$5 target=${6:-0}
	total=0
	probe_can_fail || bad "the charge probe cannot fail: a second namespace was allowed at limit 1"
	charge_is_zero 30 || bad "uid 1000 holds nosuid namespaces before the fuzzer ran"
	# One fuzzer a CPU, each on its own slice of the part's rounds: a
	# fuzzer runs one round's child at a time.
	jobs=$(nproc)
	slice=$(( (rounds + jobs - 1) / jobs ))
	part=0
	while [ $part -lt "$parts" ] ||
	      { [ $total -lt "$target" ] && [ $part -lt $((parts + 2)) ]; }; do
		first=$((part * rounds + 1))
		total_before=$total
		j=0 pids=
		while [ $j -lt "$jobs" ]; do
			from=$((first + j * slice))
			n=$((first + rounds - from))
			[ $n -gt $slice ] && n=$slice
			[ $n -gt 0 ] || break
			/kselftest/fuzz/nosuid_fuzz --seed "$seed" --first $from \
				--iterations $n --calls "$calls" > /tmp/part.$j.log 2>&1 &
			pids="$pids $!"
			j=$((j + 1))
		done
		j=0
		for pid in $pids; do
			wait "$pid" || bad "part $((part + 1)): fuzzer $j exited with $?"
			# Its summary lines, and any violation with its replay.
			grep -E 'calls in|broke the contract|replay|round [0-9]+ \(seed' /tmp/part.$j.log | sed 's/^# //'
			c=$(sed -n 's/.*rounds: \([0-9]*\) calls in.*/\1/p' /tmp/part.$j.log)
			total=$((total + ${c:-0}))
			j=$((j + 1))
		done
		charge_is_zero 60 && ucount=0 || { ucount="not 0 after 60 s"; bad "part $((part + 1)): uid 1000's nosuid namespace charge not back to 0"; }
		n=$(kernel_reports)
		[ "$n" -eq "$before" ] || bad "part $((part + 1)): $((n - before)) new kernel report lines"
		of=$parts
		[ $part -ge "$parts" ] && of="$parts, an extra part: $total_before of $target calls before it"
		say "part $((part + 1))/$of: rounds $first-$((first + rounds - 1)), seed $seed, ucount $ucount, kernel reports $((n - before)), $total calls so far"
		before=$n
		part=$((part + 1))
	done
	# Not a failure of the kernel, but the run is not what was asked.
	[ $total -ge "$target" ] ||
		say "short: the fuzzers counted $total calls, fewer than the $target asked, after $part parts"
	;;
trinity)
	seed=$2 secs=$3
	for way in gated netns keyon; do
		dir=/tmp/trinity-$way
		mkdir -p $dir
		# Its own small tmpfs: trinity's files cannot fill the guest's memory.
		mount -t tmpfs -o size=64m,mode=0755,uid=1000,gid=1000 tmpfs $dir
		holder=
		case $way in
		gated) run="nosuid --no-network" ;;
		netns) run="nosuid --netns" ;;
		keyon)
			run=
			HOME=/tmp as-user nosuid --no-network sleep 100000 &
			holder=$!
			sleep 1
			;;
		esac
		say "trinity $way: seed $seed, $secs s, as $(as_user id -u):$(as_user id -g) ${run:-unrestricted}"
		# trinity 1.9 stops by itself now and then ("locking
		# catastrophe": one of its children died holding one of its
		# locks), and segfaults at start while it builds its socket
		# cache, with some seeds and in some namespaces.  So it runs
		# without socket fds (it still calls socket(), bind(), connect(),
		# sendto() ... with random arguments), and is started again, with
		# the next seed, until the time is up.
		end=$(($(date +%s) + secs)) i=0 total=0
		while [ "$(date +%s)" -lt $end ] && [ $i -lt 500 ]; do
			left=$((end - $(date +%s)))
			log=/tmp/trinity-$way.$i.log
			(cd $dir && timeout -s INT $left sh -c "HOME=$dir USER=user \
				LOGNAME=user exec as-user $run trinity -q -l off \
				-s $((seed + i)) --disable-fds=sockets" > $log 2>&1)
			# trinity's children, and anything they left, are the user's
			# (the holder of the static key too: the key stays on).
			as_user kill -9 -1 2> /dev/null
			ran=$(sed -n 's/.*Ran \([0-9]*\) syscalls.*/\1/p' $log | tail -1)
			why=$(grep -o 'Bailing main loop.*\|Segmentation fault' $log | tail -1)
			say "trinity $way start $i: seed $((seed + i)), ran ${ran:-0} syscalls, ${why:-time up}"
			total=$((total + ${ran:-0}))
			i=$((i + 1))
			sleep 1
		done
		[ -n "$holder" ] && wait $holder 2> /dev/null
		umount -l $dir
		n=$(kernel_reports)
		[ "$n" -eq "$before" ] || bad "trinity $way: $((n - before)) new kernel report lines"
		say "trinity $way: $total syscalls in $i starts, seeds $seed-$((seed + i - 1)), tainted=$(cat /proc/sys/kernel/tainted), kernel reports $((n - before))"
		before=$n
	done
	;;
*)
	bad "usage: fuzz-guest.sh fuzz SEED PARTS ROUNDS CALLS | trinity SEED SECONDS"
	;;
esac
kill $hold
dmesg | grep -E "$reports" | grep -vE "$not_reports" | head -20
[ $fail -eq 0 ] && say ok || say FAILED
exit $fail
