#!/bin/bash
# Fetch Debian's linux-source-7.3 and linux-config-7.3 from trixie-backports
# into build/apt/root/usr/src/ (BASE=7.3), leaving the host's apt
# configuration alone: a private sources.list naming the Debian mirror the
# host's sources already use, private lists and cache, "apt-get download"
# and "dpkg-deb -x" (no dpkg database, no root needed to unpack).  The
# packages are unpacked in a temporary directory moved into place when
# complete, with the file "fetched" (package, version, suite) that
# scripts/base.sh reads: never a half-unpacked tree.
# Point releases move: the lists are updated each time (about 1 s) and the
# packages fetched again only when the candidate version changed.  With the
# network down, an earlier fetch is used with a warning.  When
# trixie-backports has no linux-source-7.3, sid's linux-source-7.2 stands
# in, and every label says so.
# usage: fetch-source.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/base.sh
. "$top/scripts/base.sh"
d=$top/build/apt
root=$d/root
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
die() { echo "error: $*" >&2; exit 1; }

have=
[ -r "$root/fetched" ] && have=$(. "$root/fetched" && echo "$DEB_PKG $DEB_VER from $DEB_SUITE")
# Without a way to ask the mirror, what was fetched before will do.
unreachable() {
	[ -n "$have" ] || die "$1"
	echo "warning: $1; using the fetched $have" >&2
	exit 0
}

# The mirror (debian_mirror, scripts/base.sh).
mirror=$(debian_mirror)
[ -n "$mirror" ] || unreachable "no Debian mirror (a URI ending in /debian) in /etc/apt/sources.list or /etc/apt/sources.list.d/*.{list,sources}"
[ -r "$keyring" ] || die "$keyring missing: apt-get install debian-archive-keyring"

# The private apt of SUITE: trixie-backports in build/apt/, sid in
# build/apt/sid/.
dir_of() { [ "$1" = trixie-backports ] && echo "$d" || echo "$d/$1"; }
papt() {	# SUITE COMMAND ARG...
	local dir
	dir=$(dir_of "$1")
	shift
	"$@" -o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache"
}
# apt-get update exits 0 when a source failed ("W: Failed to fetch"):
# --error-on=any makes that a failure.
update() {	# SUITE
	local dir
	dir=$(dir_of "$1")
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	echo "deb [signed-by=$keyring] $mirror $1 main" > "$dir/sources.list"
	papt "$1" apt-get -q --error-on=any update > "$dir/update.log" 2>&1 ||
		unreachable "apt-get update of $mirror $1 failed ($(grep -E '^(E|W): ' "$dir/update.log" | head -1 | cut -c1-160); log: $dir/update.log)"
}
candidate() {	# SUITE PACKAGE: its version there, or nothing
	{ papt "$1" apt-cache show --no-all-versions "$2" 2>/dev/null || true; } |
		sed -n 's/^Version: //p' | head -1
}

suite=trixie-backports kver=7.3
update "$suite"
ver=$(candidate "$suite" "linux-source-$kver")
if [ -z "$ver" ]; then
	echo "warning: $suite has no linux-source-7.3: falling back to sid's linux-source-7.2, so BASE=7.3 builds 7.2" >&2
	suite=sid kver=7.2
	update "$suite"
	ver=$(candidate "$suite" "linux-source-$kver")
	[ -n "$ver" ] || die "neither trixie-backports has linux-source-7.3 nor sid linux-source-7.2 ($mirror)"
fi
pkg=linux-source-$kver
[ "$have" = "$pkg $ver from $suite" ] && [ -r "$root/usr/src/$pkg.tar.xz" ] && exit 0

echo "fetching Debian $pkg and linux-config-$kver $ver from $mirror $suite"
tmp=$d/fetch.tmp
rm -rf "$tmp"
mkdir -p "$tmp/debs" "$tmp/root"
# As root apt would hand the download to the _apt user, who may not write here.
sandbox=()
[ "$(id -u)" -ne 0 ] || sandbox=(-o APT::Sandbox::User=root)
log=$(dir_of "$suite")/download.log
(cd "$tmp/debs" && papt "$suite" apt-get -q "${sandbox[@]}" download \
	"$pkg=$ver" "linux-config-$kver=$ver") > "$log" 2>&1 ||
	die "apt-get download of $pkg and linux-config-$kver $ver from $mirror $suite failed ($(grep -E '^(E|W): ' "$log" | head -1 | cut -c1-160); log: $log)"
for deb in "$tmp"/debs/*.deb; do
	dpkg-deb -x "$deb" "$tmp/root" || die "dpkg-deb -x $deb failed"
done
deb_ver=$(dpkg-deb -f "$tmp/debs/${pkg}_"*.deb Version)
[ -r "$tmp/root/usr/src/$pkg.tar.xz" ] || die "$pkg $deb_ver has no usr/src/$pkg.tar.xz"
printf "DEB_PKG=%s\nDEB_VER='%s'\nDEB_SUITE=%s\n" "$pkg" "$deb_ver" "$suite" > "$tmp/root/fetched"
rm -rf "$root.old"
[ ! -d "$root" ] || mv "$root" "$root.old"
mv "$tmp/root" "$root"
rm -rf "$root.old" "$tmp"
echo "fetched Debian $pkg $deb_ver from $suite: $root/usr/src/$pkg.tar.xz"
