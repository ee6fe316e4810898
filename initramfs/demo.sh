#!/bin/sh
# The ./run.sh scenario, run in the guest as the unprivileged user: each
# step says what it tries, what the kernel answered, and whether that is
# what the series promises.  Exit status 0 only if every step was.
steps=0
kept=0

# step WANT DESCRIPTION CMD...: WANT is "ok" (CMD must succeed) or
# "refused" (CMD must fail); an optional GREP=pattern must match the output,
# so that a refusal counts only when it is the kernel's, for the reason
# promised.
# Prints "[ ok ]" when the kernel answered as the series promises.
step() {
	want=$1 what=$2
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	got=ok
	[ $rc -eq 0 ] || got=refused
	if [ -n "${GREP:-}" ] && ! echo "$out" | grep -q -- "$GREP"; then
		got="unexpected output"
	fi
	steps=$((steps + 1))
	if [ "$got" = "$want" ]; then
		kept=$((kept + 1))
		verdict=" ok "
	else
		verdict="FAIL"
	fi
	printf '  [%s] %-54s -> %s\n' "$verdict" "$what" \
		"$(echo "$out" | tr '\n' ' ' | cut -c1-48)"
	[ "$verdict" = FAIL ] && printf '         (the series promises: %s)\n' "$want"
	GREP=
}

echo "== as $(id -un) (uid $(id -u)) on $(uname -r)"
netprobe serve tcp 8080 && netprobe serve udp 8081 &&
	netprobe serve unix /tmp/demo.sock && netprobe serve abstract demo ||
	echo "  (could not start the loopback servers)"

echo
echo "1. A setuid-root program, normally and under nosuid"
GREP="euid=0" step ok "suid-show-ids                  (runs as root)" suid-show-ids
GREP="euid=1000" step ok "nosuid suid-show-ids           (runs as the user)" nosuid suid-show-ids
GREP="NoSUID:	1" step ok "nosuid: the flag is inherited and visible" nosuid grep NoSUID /proc/self/status

echo
echo "2. nosuid --no-network: no new network access"
step ok      "control: TCP connect to 127.0.0.1:8080, no gate" netprobe connect tcp 8080
GREP="not permitted" step refused "TCP connect to 127.0.0.1:8080 behind the gate" nosuid --no-network netprobe connect tcp 8080
GREP="not permitted" step refused "UDP sendto 127.0.0.1:8081 behind the gate" nosuid --no-network netprobe sendto udp 8081
step ok      "a TCP socket connected before the gate still works" netprobe hold tcp 8080 nosuid --no-network netprobe use 3
step ok      "pathname AF_UNIX socket /tmp/demo.sock" nosuid --no-network netprobe connect unix /tmp/demo.sock
step ok      "control: abstract AF_UNIX @demo, no gate" netprobe connect abstract demo
GREP="not permitted" step refused "abstract AF_UNIX @demo behind the gate" nosuid --no-network netprobe connect abstract demo

echo
echo "3. A private network namespace, unprivileged"
GREP="UP" step ok "nosuid unshare -n: lo is up in the new namespace" nosuid unshare -n ip link show lo
step ok      "nosuid unshare -n: a local server and its client work" nosuid unshare -n sh -c 'netprobe serve tcp 9000 && netprobe connect tcp 9000'
GREP="refused" step refused "nosuid unshare -n: the outer 127.0.0.1:8080 is gone" nosuid unshare -n netprobe connect tcp 8080
GREP="not permitted" step refused "nosuid --netns: the new lo cannot be configured" nosuid --netns ip link set lo down
step ok      "nosuid --netns --no-network: pathname AF_UNIX still works" nosuid --netns --no-network netprobe connect unix /tmp/demo.sock

echo
echo "4. Without nosuid nothing changes"
GREP="not permitted" step refused "unshare -n without nosuid" unshare -n true
GREP="not permitted" step refused "prctl(PR_SET_NETWORK) without nosuid" netprobe gate

echo
if [ $kept -eq $steps ]; then
	echo "demo: all $steps steps behaved as the series promises"
	exit 0
fi
echo "demo: $((steps - kept)) of $steps steps did NOT behave as promised"
exit 1
