#!/bin/bash
# The checks of make check-debian-system, run by the login shell of "user"
# (uid 1000) on the serial console (agetty --autologin, login(1), PAM,
# logind).  Each check prints one "PASS name" or "FAIL name: why" line and
# has a control that shows the same operation succeeds without the
# restriction; informational lines start with "# ".  The last line is
# "N passed, N failed".
# The kernel argument nosuid_check.standin=nnp replaces nosuid by
# "setpriv --no-new-privs" in the setuid checks, to try them on a kernel
# without the series (their names then say "(stand-in)").
set -u
lib=/usr/local/lib/nosuid-check
url=http://127.0.0.1:8080/
page="nosuid-check web server"
pass=0 fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1: $(echo "$2" | tr '\n' ' ' | cut -c1-400)"; fail=$((fail + 1)); }
info() { echo "$@" | sed 's/^/# /'; }
# run CMD...: its output and stderr in $out, its status in $rc.
run() { out=$(timeout 60 "$@" 2>&1); rc=$?; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

NS=(nosuid) ns_label=
if grep -qw 'nosuid_check.standin=nnp' /proc/cmdline; then
	NS=(setpriv --no-new-privs) ns_label=" (stand-in)"
fi

echo "@@NOSUID-CHECK-START uptime $(cut -d' ' -f1 /proc/uptime)@@"
info "kernel $(uname -r); $(. /etc/os-release && echo "$PRETTY_NAME"); $(id)"
info "nosuid --status: $(nosuid --status 2>&1 | tr '\n' ' ')"
# The boot must be over before units are counted (the getty comes early).
state=$(timeout 300 systemctl is-system-running --wait 2>&1)
info "system state: $state after $(cut -d' ' -f1 /proc/uptime) s"

# --- 0. a real login: logind's session of this shell
sess=$(loginctl show-session "${XDG_SESSION_ID:-none}" -p Service -p TTY -p Class -p Type 2>&1 | sort | tr '\n' ' ')
if [ "$(id -u)" != 1000 ]; then
	bad login "not uid 1000 but $(id)"
elif [ "$sess" = "Class=user Service=login TTY=ttyS0 Type=tty " ] &&
	[ "$(cat /proc/1/comm)" = systemd ] && [ -n "${XDG_RUNTIME_DIR:-}" ]; then
	ok login
else
	bad login "session ${XDG_SESSION_ID:-none}: $sess; PID 1 $(cat /proc/1/comm)"
fi

# --- 1. the LSMs, and no failed unit
lsm=$(cat /sys/kernel/security/lsm 2>&1)
info "lsm: $lsm"
case ",$lsm," in
*,apparmor,*disablenetwork,* | *,disablenetwork,*apparmor,*) ok lsm ;;
*,*,*) bad lsm "/sys/kernel/security/lsm has no $(echo ",$lsm," | grep -q ',apparmor,' || echo 'apparmor ')$(echo ",$lsm," | grep -q ',disablenetwork,' || echo disablenetwork): $lsm" ;;
*) bad lsm "cannot read /sys/kernel/security/lsm (the control): $lsm" ;;
esac
failed=$(systemctl --failed --plain --no-legend 2>&1)
active=$(systemctl list-units --state=active --plain --no-legend | wc -l)
if [ "$active" -lt 10 ]; then
	bad units-failed "systemctl lists only $active active units (the control)"
elif [ -z "$failed" ]; then
	ok units-failed
else
	bad units-failed "$(echo "$failed" | wc -l) failed: $(echo "$failed" | awk '{print $1}' | tr '\n' ' ')"
	# shellcheck disable=SC2046 # one unit a word
	info "$(systemctl status --no-pager -n 5 $(echo "$failed" | awk '{print $1}') 2>&1)"
fi

# --- 2. the network gate against a local web server (a system unit)
for _ in $(seq 30); do
	run curl -sS --max-time 5 "$url"
	[ "$out" = "$page" ] && break
	sleep 1
done
if [ "$out" != "$page" ]; then
	bad curl-no-network "control: plain curl $url: rc $rc: $out"
else
	run nosuid curl -sS --max-time 5 "$url"
	nosuid_rc=$rc nosuid_out=$out
	run nosuid --no-network curl -sS --max-time 5 "$url"
	if [ "$nosuid_out" != "$page" ]; then
		bad curl-no-network "control: nosuid curl (no --no-network) failed: rc $nosuid_rc: $nosuid_out"
	elif [ "$rc" -ge 125 ] || [ "$rc" -eq 0 ] || [[ "$out" == *"$page"* ]]; then
		bad curl-no-network "nosuid --no-network curl: rc $rc: $out"
	else
		ok curl-no-network
		info "nosuid --no-network curl: rc $rc: $out"
	fi
fi

# --- 3. setuid-root programs and a file capability gain privilege, and
# nothing under nosuid, failing cleanly: a status of their own (not nosuid's
# 125-127, not a signal's 128+) and an error message.
# refused NAME WHAT: judges the restricted run in $rc/$out.
refused() {
	if [ "$rc" -eq 0 ]; then
		bad "$1$ns_label" "under ${NS[*]}, $2 still succeeded: $out"
	elif [ "$rc" -ge 125 ]; then
		bad "$1$ns_label" "under ${NS[*]}, $2 did not fail cleanly: rc $rc: $out"
	elif [ -z "$out" ]; then
		bad "$1$ns_label" "under ${NS[*]}, $2 failed (rc $rc) without a message"
	else
		ok "$1$ns_label"
		info "$1 under ${NS[*]}: rc $rc: $out"
	fi
}
# passwd: the user changes their own password (it writes /etc/shadow),
# then tries again under nosuid.
pw1=Nosuid-Check-4821x pw2=Another-Try-9377y
run "$lib/pty-run.py" user "$pw1" "$pw1" -- passwd
if [ "$rc" -ne 0 ] || [[ "$out" != *"updated successfully"* ]]; then
	bad setuid-passwd "control: passwd (user -> $pw1): rc $rc: $out"
else
	run "${NS[@]}" "$lib/pty-run.py" "$pw1" "$pw2" "$pw2" -- passwd
	out=$(echo "$out" | sed 's/[A-Za-z ]*assword: //g')
	[[ "$out" == *"updated successfully"* ]] && rc=0
	refused setuid-passwd "passwd ($pw1 -> $pw2)"
fi
# su to another account, the password typed on a terminal of its own.
run "$lib/pty-run.py" otherpw -- su -c 'id -un' other
if [ "$rc" -ne 0 ] || [ "$(echo "$out" | tail -1)" != other ]; then
	bad setuid-su "control: su -c 'id -un' other: rc $rc: $out"
else
	run "${NS[@]}" "$lib/pty-run.py" otherpw -- su -c 'id -un' other
	[ "$(echo "$out" | tail -1)" = other ] && rc=0
	out=$(echo "$out" | sed 's/[A-Za-z ]*assword: //g')
	refused setuid-su "su -c 'id -un' other"
fi
# newgrp (as sg): nsgrp, a supplementary group, as the primary one needs
# setgid(2) by root.
run sg nsgrp -c 'id -gn'
if [ "$rc" -ne 0 ] || [ "$out" != nsgrp ]; then
	bad setuid-newgrp "control: sg nsgrp -c 'id -gn': rc $rc: $out"
else
	run "${NS[@]}" sg nsgrp -c 'id -gn'
	[ "$out" = nsgrp ] && rc=0
	refused setuid-newgrp "sg nsgrp -c 'id -gn'"
fi
# mount of the fstab entry with the "user" option.
mnt=/mnt/nosuid-check
run mount "$mnt"
if [ "$rc" -ne 0 ] || ! findmnt -n "$mnt" > /dev/null; then
	bad setuid-mount "control: mount $mnt: rc $rc: $out"
else
	umount "$mnt"
	run "${NS[@]}" mount "$mnt"
	findmnt -n "$mnt" > /dev/null && { rc=0; umount "$mnt"; }
	refused setuid-mount "mount $mnt"
fi
# ping: cap_net_raw as a file capability, and ping_group_range "1 0" (no
# ICMP socket without it).
caps=$(/usr/sbin/getcap "$(readlink -f /usr/bin/ping)" 2>&1)
run ping -c1 -W5 127.0.0.1
if [[ "$caps" != *cap_net_raw* ]] || [ "$(tr -s '\t ' ' ' < /proc/sys/net/ipv4/ping_group_range)" != "1 0" ]; then
	bad fcap-ping "control: ping is not cap_net_raw only ($caps; ping_group_range $(cat /proc/sys/net/ipv4/ping_group_range))"
elif [ "$rc" -ne 0 ]; then
	bad fcap-ping "control: ping -c1 127.0.0.1: rc $rc: $out"
else
	run "${NS[@]}" ping -c1 -W5 127.0.0.1
	refused fcap-ping "ping -c1 127.0.0.1"
fi

# --- 4. a network namespace of its own, without privilege, under nosuid
links=$(ip -br link 2>&1)
run unshare -n true
ctl_rc=$rc ctl_out=$out
run nosuid unshare -n ip -br link
if [ "$ctl_rc" -eq 0 ]; then
	bad netns-unshare "control: plain unshare -n succeeded for the user"
elif [ "$(echo "$links" | wc -l)" -lt 2 ]; then
	bad netns-unshare "control: the initial namespace has only: $links"
elif [ "$rc" -ne 0 ]; then
	bad netns-unshare "nosuid unshare -n ip -br link: rc $rc: $out"
elif [ "$(echo "$out" | wc -l)" -ne 1 ] || [ "$(echo "$out" | awk '{print $1}')" != lo ] ||
	! echo "$out" | grep -q '[<,]UP[,>]'; then
	bad netns-unshare "not only lo, UP: $out"
else
	ok netns-unshare
	info "plain unshare -n: $ctl_out; the initial namespace: $(echo "$links" | awk '{print $1}' | tr '\n' ' ')"
	info "nosuid unshare -n ip -br link: $out"
fi

# --- 5. a program built here against the installed <linux/prctl.h>
hdr=$(dpkg-query -S /usr/include/linux/prctl.h 2>/dev/null | cut -d: -f1)
hdr="$hdr $(dpkg-query -W -f='${Version}' "$hdr" 2>/dev/null)"
run gcc -DHEADER_CHECK -fsyntax-only "$lib/prctl-test.c"
if [ "$rc" -eq 0 ]; then
	ok headers
	info "linux/prctl.h from $hdr"
else
	bad headers "<linux/prctl.h> ($hdr) lacks PR_SET_NOSUID/PR_SET_NETWORK: $(echo "$out" | grep -m1 'error:')"
fi
run gcc -Wall -o prctl-test "$lib/prctl-test.c"
if [ "$rc" -ne 0 ]; then
	bad prctl-program "gcc: $out"
else
	run ./prctl-test
	if [ "$rc" -eq 0 ]; then
		ok prctl-program
		info "prctl-test: $out"
	else
		bad prctl-program "$out"
	fi
fi

# --- 6. systemd's sandboxing beside the series: nosuid-check-sandbox.service
res=/var/lib/nosuid-check-sandbox/result
unit=$(systemctl show -p ActiveState -p Result nosuid-check-sandbox.service | sort | tr '\n' ' ')
inet=$(python3 -c 'import socket; socket.socket(socket.AF_INET).close(); print("ok")' 2>&1)
want="NoNewPrivs:	1
state-write: ok
usr-write: touch: cannot touch '/usr/nosuid-check-probe': Read-only file system
links: lo 
inet-socket: EAFNOSUPPORT
unix-socket: ok
sysfs-read: cat: /sys/kernel/uevent_seqnum: Operation not permitted"
sysfs=$(cat /sys/kernel/uevent_seqnum > /dev/null 2>&1 && echo ok)
if [ "$sysfs" != ok ]; then
	bad systemd-sandbox "control: the user cannot read /sys/kernel/uevent_seqnum"
elif [ "$inet" != ok ] || [ "$(echo "$links" | wc -l)" -lt 2 ]; then
	bad systemd-sandbox "control: the user's own socket(AF_INET): $inet; links: $links"
elif [ "$unit" != "ActiveState=active Result=success " ] || [ ! -r "$res" ]; then
	bad systemd-sandbox "the unit: $unit; $(ls -l "$res" 2>&1)"
elif [ "$(cat "$res")" != "$want" ]; then
	bad systemd-sandbox "$(diff <(echo "$want") "$res" | grep '^[<>]')"
else
	ok systemd-sandbox
fi
info "sandbox: $(tr '\n' ';' < "$res" 2>&1)"

# --- 7. a user service under nosuid (systemctl --user)
d=${XDG_RUNTIME_DIR:-/nonexistent}
rm -f "$d"/nosuid-check-user*.out
run systemctl --user start nosuid-check-user-control.service
ctl=$(cat "$d/nosuid-check-user-control.out" 2>&1)
run systemctl --user start nosuid-check-user.service
got=$(cat "$d/nosuid-check-user.out" 2>&1)
if ! echo "$ctl" | grep -q '^sg-rc: 0' || ! echo "$ctl" | grep -qx nsgrp; then
	bad user-service "control: the same user service without nosuid: $ctl"
elif [ "$rc" -ne 0 ] || [ ! -r "$d/nosuid-check-user.out" ]; then
	bad user-service "systemctl --user start nosuid-check-user.service: rc $rc: $out; $(journalctl --user -u nosuid-check-user.service -b -o cat -n 3 --no-pager 2>&1)"
elif ! echo "$got" | grep -q '^NoSUID:	1' || echo "$got" | grep -q '^sg-rc: 0'; then
	bad user-service "under nosuid: $got"
else
	ok user-service
fi
info "user service: $(echo "$got" | tr '\n\t' '; ')"

# --- 8. the kernel log and the journal's errors
dm=$(dmesg 2>&1)
# The harness's pattern list (KERNEL_REPORTS in scripts/base.sh).
reports=$(echo "$dm" | grep -E -f "$lib/kernel-reports" | grep -v -E -f "$lib/kernel-not-reports")
if ! echo "$dm" | grep -q 'Linux version'; then
	bad kernel-log "control: dmesg as the user: $(echo "$dm" | head -1)"
elif [ -n "$reports" ]; then
	bad kernel-log "$(echo "$reports" | head -5)"
else
	ok kernel-log
fi
# Every error-priority line of this boot fails the check, whatever it names:
# only reading each one tells whether the series, its package or the image
# caused it (a word filter once matched the host name and missed the rest).
errs=$(journalctl -p err -b --no-pager -q -o short-monotonic 2>&1)
if ! journalctl -b --no-pager -q _PID=1 2>/dev/null | grep -q 'Reached target'; then
	bad journal-errors "control: the user cannot read PID 1's messages in the journal"
elif [ -n "$errs" ]; then
	bad journal-errors "$(echo "$errs" | head -3)"
else
	ok journal-errors
fi
info "journalctl -p err -b: $(echo "$errs" | grep -c .) lines"
[ -n "$errs" ] && info "$errs"

echo "@@NOSUID-CHECK-END uptime $(cut -d' ' -f1 /proc/uptime)@@"
echo "$pass passed, $fail failed"
