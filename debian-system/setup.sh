#!/bin/sh
# Run by scripts/debian-image.sh in the image's chroot, as root, after the
# kernel packages are installed: the accounts, configuration and units the
# checks need (check.sh says which check uses what).
set -eu
cd /tmp/setup
lib=/usr/local/lib/nosuid-check

echo debian-nosuid > /etc/hostname
# pam_env logs an error for every session without it.
echo LANG=C.UTF-8 > /etc/default/locale
printf '127.0.0.1\tlocalhost\n127.0.1.1\tdebian-nosuid\n::1\tlocalhost ip6-localhost\n' > /etc/hosts
# A machine id of its own, so that systemd-firstboot has nothing to ask on
# the console (it is masked too).
tr -d '-' < /proc/sys/kernel/random/uuid > /etc/machine-id
ln -sf /dev/null /etc/systemd/system/systemd-firstboot.service
# The root is mounted rw by the kernel (no fsck); the tmpfs is the entry an
# ordinary user may mount through setuid mount(8) ("user").
mkdir -p /mnt/nosuid-check
cat > /etc/fstab <<'FSTAB'
/dev/vda	/			ext4	rw,errors=remount-ro	0 0
tmpfs		/mnt/nosuid-check	tmpfs	user,noauto,size=1m	0 0
FSTAB

# The ordinary user (uid 1000, in adm to read the system journal and in
# nsgrp, a group only setgid newgrp can make its primary one), and a second
# account with a known password for su.
groupadd -g 1100 nsgrp
useradd -m -u 1000 -s /bin/bash -G adm,nsgrp user
useradd -m -u 1001 -s /bin/bash other
printf 'user:user\nother:otherpw\n' | chpasswd

# ping must need its file capability: no unprivileged ICMP sockets for
# anyone (systemd's 50-default.conf opens them to all); the user reads dmesg.
cat > /etc/sysctl.d/90-nosuid-check.conf <<'SYSCTL'
net.ipv4.ping_group_range = 1 0
kernel.dmesg_restrict = 0
SYSCTL
# iputils-ping's postinst falls back to setuid root when setcap was not
# there yet: make it the file capability in any case.
ping=$(readlink -f /usr/bin/ping)
chmod u-s "$ping"
setcap cap_net_raw+p "$ping"

# STOCK_KERNEL: the nosuid command from tools/nosuid.c, as its package
# would install it (it fails on a kernel without the series).
if [ -r nosuid.c ] && [ ! -e /usr/bin/nosuid ]; then
	gcc -O2 -Wall -o /usr/bin/nosuid nosuid.c
	mkdir -p /usr/share/man/man1
	cp nosuid.1 /usr/share/man/man1/
fi

mkdir -p "$lib" /srv/nosuid-check /etc/systemd/user
install -m 0755 check.sh sandbox.sh user-probe.sh pty-run.py "$lib/"
install -m 0644 prctl-test.c kernel-reports kernel-not-reports "$lib/"
echo "nosuid-check web server" > /srv/nosuid-check/index.html
cp system/*.service system/*.path /etc/systemd/system/
cp user/*.service /etc/systemd/user/
cp system/nosuid-check.tmpfiles /etc/tmpfiles.d/nosuid-check.conf
# The login path: agetty logs the user in on the serial console through
# login(1), PAM and logind; the login shell runs the checks once.
mkdir -p /etc/systemd/system/serial-getty@ttyS0.service.d
cp system/autologin.conf /etc/systemd/system/serial-getty@ttyS0.service.d/
install -o user -g user -m 0644 bash_profile /home/user/.bash_profile
systemctl enable nosuid-check-httpd.service nosuid-check-sandbox.service nosuid-check-done.path
