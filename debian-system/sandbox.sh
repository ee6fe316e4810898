#!/bin/sh
# Run by nosuid-check-sandbox.service (NoNewPrivileges, PrivateNetwork,
# RestrictAddressFamilies=AF_UNIX, ProtectSystem=strict,
# RestrictFileSystems=~sysfs), as root: what the
# options allow and refuse, one "key: value" a line, for check.sh.
r=$STATE_DIRECTORY/result
sock() { python3 -c "import socket, errno, sys
try:
    socket.socket(socket.$1, socket.SOCK_STREAM).close(); print('ok')
except OSError as e:
    print(errno.errorcode[e.errno])"; }
{
	grep '^NoNewPrivs:' /proc/self/status
	echo "state-write: $( (echo ok > "$STATE_DIRECTORY/probe" && echo ok) 2>&1)"
	echo "usr-write: $( (touch /usr/nosuid-check-probe && echo ok) 2>&1)"
	# /proc/net/dev is the reader's namespace (ip(8) needs AF_NETLINK).
	echo "links: $(sed -n '3,$s/:.*//p' /proc/self/net/dev | tr -d ' ' | sort | tr '\n' ' ')"
	echo "inet-socket: $(sock AF_INET)"
	echo "unix-socket: $(sock AF_UNIX)"
	# RestrictFileSystems= is a BPF LSM program: it needs the kernel's BTF.
	echo "sysfs-read: $( (cat /sys/kernel/uevent_seqnum > /dev/null && echo ok) 2>&1)"
} > "$r.tmp" 2>&1
mv "$r.tmp" "$r"
