#!/bin/bash
# A Debian trixie system image for make check-debian-system: Debian's own
# mmdebstrap, packages from the mirror the host's apt sources already name
# (the host's apt configuration is left alone), the kernel packages of
# make deb installed with dpkg -i, debian-system/ set up inside, and an ext4
# disk made with mkfs.ext4 -d (no loop mount).
#
# usage: debian-image.sh [DEB...]     (or DEBS=dir; default build/deb/*.deb
#                                     but *-dbg_*.deb)
#   STOCK_KERNEL=1  trixie's linux-image-cloud-amd64 instead of our packages,
#                   and the nosuid command built from tools/nosuid.c in the
#                   guest: the pipeline tested without the series
# The base system (mmdebstrap's output) is cached in
# build/debian-system/cache/ as a tarball keyed on the package list, the
# suite and the mmdebstrap options; it is written under a temporary name and
# renamed when complete, so a failed build leaves no entry, and removed
# after 30 days unused.  Each run unpacks it, installs the packages, runs
# debian-system/setup.sh in it and writes build/debian-system/{disk.img,
# vmlinuz,initrd.img,kernel-version}.  Must run as root (chroot, dpkg -i,
# root-owned files in the image).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# debian_mirror, KERNEL_REPORTS
# shellcheck source=scripts/base.sh
. "$top/scripts/base.sh"
out=$top/build/debian-system
cache=$out/cache
root=$out/root
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
suite=trixie
die() { echo "error: $*" >&2; exit 1; }
# The first E:/dpkg:/error line of a log, with the indented line after it
# (where dpkg says why), for one-line errors.
why() { grep -m1 -A1 -E '^(E|dpkg): |error' "$1" | sed -n '1p; 2{/^ /p}' | tr -s '\n ' '  ' | cut -c1-240; }

[ "$(id -u)" -eq 0 ] || die "debian-image.sh must run as root (chroot, dpkg -i, root-owned files in the image)"
# Debian's own image tool, and what makes the disk.
need=()
for t in mmdebstrap:mmdebstrap mkfs.ext4:e2fsprogs unshare:util-linux; do
	command -v "${t%%:*}" > /dev/null || need+=("${t#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
	apt-get install -y -q --no-install-recommends "${need[@]}" > /dev/null ||
		die "apt-get install ${need[*]} failed"
fi
[ -r "$keyring" ] || die "$keyring missing: apt-get install debian-archive-keyring"

# The mirror (debian_mirror, scripts/base.sh).
mirror=$(debian_mirror)
[ -n "$mirror" ] || die "no Debian mirror (a URI ending in /debian) in /etc/apt/sources.list or /etc/apt/sources.list.d/*.{list,sources}"

# What the checks need (debian-system/check.sh): systemd as init, a login
# path (login, PAM, logind), Debian's setuid and file-capability programs,
# curl and a web server (python3), gcc for the test program, AppArmor.
pkgs=(systemd systemd-sysv udev dbus libpam-systemd login passwd util-linux mount
	procps iputils-ping iproute2 curl apparmor python3 gcc libc6-dev
	initramfs-tools kmod libcap2-bin e2fsprogs)
[ -n "${STOCK_KERNEL:-}" ] && pkgs+=(linux-image-cloud-amd64)
mmopts=(--variant=apt --components=main --keyring="$keyring"
	--aptopt='Acquire::Retries "3"' --dpkgopt='path-exclude=/usr/share/doc/*'
	--dpkgopt='path-include=/usr/share/doc/*/copyright'
	--dpkgopt='path-exclude=/usr/share/locale/*')
# The key: what decides the base's content (the mirror does not).
key=$(printf '%s\n' "$suite" "${pkgs[@]}" "${mmopts[@]}" | sha256sum | cut -c1-16)
base=$cache/base-$suite-$key.tar

mkdir -p "$cache"
start=$(date +%s)
if [ ! -s "$base" ]; then
	echo "building the Debian $suite base ($key) from $mirror: ${#pkgs[@]} packages"
	tmp=$cache/tmp.$$
	rm -rf "$tmp" "$base.tmp"
	trap 'rm -rf "$tmp" "$base.tmp"' EXIT
	log=$cache/mmdebstrap.log
	# In a mount namespace of its own: whatever mmdebstrap mounts in the
	# chroot goes with it, even when it is killed.
	nice -n 19 unshare --mount --propagation private mmdebstrap "${mmopts[@]}" --include="$(IFS=,; echo "${pkgs[*]}")" \
		"$suite" "$tmp" "deb [signed-by=$keyring] $mirror $suite main" > "$log" 2>&1 ||
		die "mmdebstrap of Debian $suite from $mirror failed: $(why "$log") (log: $log)"
	# Keep the file capabilities (ping's cap_net_raw) and ownership.
	tar -C "$tmp" --numeric-owner --xattrs --xattrs-include='*' -cf "$base.tmp" . ||
		die "tar of the base failed"
	mv "$base.tmp" "$base"
	rm -rf "$tmp"
	trap - EXIT
	echo "base built in $(($(date +%s) - start)) s: $base ($(du -h "$base" | cut -f1))"
fi

# Bases of other keys (STOCK_KERNEL=1 has its own) go when unused for 30 days.
touch "$base"
find "$cache" -name 'base-*.tar' -mtime +30 -delete

# The packages of make deb, or none for STOCK_KERNEL.
debs=()
if [ -z "${STOCK_KERNEL:-}" ]; then
	if [ $# -gt 0 ]; then
		debs=("$@")
	else
		# Not the debug symbols (linux-image-*-dbg): a gigabyte nobody
		# reads in the guest.
		for d in "${DEBS:-$top/build/deb}"/*.deb; do
			[ -e "$d" ] && [[ "$d" != *-dbg_*.deb ]] && debs+=("$d")
		done
	fi
	[ ${#debs[@]} -gt 0 ] || die "no .deb files in ${DEBS:-$top/build/deb}: run make deb (or STOCK_KERNEL=1 for trixie's own kernel)"
	for d in "${debs[@]}"; do
		dpkg-deb -f "$d" Package > /dev/null 2>&1 || die "$d is not a .deb"
	done
fi

t0=$(date +%s)
# No image of an earlier run may stay behind a failed one.
rm -rf "$root" "$out/disk.img" "$out/vmlinuz" "$out/initrd.img" "$out/kernel-version"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"
tar -C "$root" --numeric-owner --xattrs --xattrs-include='*' -xf "$base"
mkdir -p "$root/tmp/debs" "$root/tmp/setup"
[ ${#debs[@]} -eq 0 ] || cp "${debs[@]}" "$root/tmp/debs/"
cp -r "$top/debian-system/." "$root/tmp/setup/"
# The kernel-log check uses the harness's one list of report patterns.
printf '%s\n' "$KERNEL_REPORTS" > "$root/tmp/setup/kernel-reports"
printf '%s\n' "$KERNEL_NOT_REPORTS" > "$root/tmp/setup/kernel-not-reports"
[ -z "${STOCK_KERNEL:-}" ] || cp "$top/tools/nosuid.c" "$top/tools/nosuid.1" "$root/tmp/setup/"
# dpkg -i, the kernel's initramfs and the setup in a chroot, with /proc
# mounted in a mount namespace of its own: nothing stays mounted on the host.
log=$out/setup.log
nice -n 19 unshare --mount --propagation private sh -euc '
	mount -t proc proc "$1/proc"
	if ls "$1"/tmp/debs/*.deb > /dev/null 2>&1; then
		chroot "$1" sh -c "dpkg -i /tmp/debs/*.deb"
	fi
	chroot "$1" sh /tmp/setup/setup.sh' sh "$root" > "$log" 2>&1 ||
	die "installing the packages or setting up the image failed: $(why "$log") (log: $log)"
rm -rf "$root/tmp/debs" "$root/tmp/setup"
[ -x "$root/usr/bin/nosuid" ] || die "no /usr/bin/nosuid in the image: the nosuid package is not among ${debs[*]}"

# The installed kernel: the newest /boot/vmlinuz-* (there is one).
kver=$(cd "$root/boot" && ls vmlinuz-* 2>/dev/null | sed 's/^vmlinuz-//' | sort -V | tail -1)
[ -n "$kver" ] || die "no /boot/vmlinuz-* in the image: did the packages include a linux-image?"
cp "$root/boot/vmlinuz-$kver" "$out/vmlinuz"
rm -f "$out/initrd.img"
[ -r "$root/boot/initrd.img-$kver" ] && cp "$root/boot/initrd.img-$kver" "$out/initrd.img"
echo "$kver" > "$out/kernel-version"

# The disk: the tree plus room for the journal, apt and the test program.
mb=$(du -sm "$root" | cut -f1)
truncate -s "$((mb + mb / 4 + 512))M" "$out/disk.img"
nice -n 19 mkfs.ext4 -q -F -L debian-root -E root_owner=0:0 -d "$root" "$out/disk.img" ||
	die "mkfs.ext4 -d of $root failed"
rm -rf "$root"
trap - EXIT
echo "image: $out/disk.img ($((mb + mb / 4 + 512)) MB, $(du -m "$out/disk.img" | cut -f1) MB used), kernel $kver$([ -r "$out/initrd.img" ] || echo ' (no initrd)'), made in $(($(date +%s) - t0)) s"
