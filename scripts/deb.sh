#!/bin/bash
# make deb: the base plus the series as packages a Debian system installs
# with dpkg -i, in build/deb/:
#  - linux-image-R, linux-headers-R and linux-libc-dev (R = 7.3.4-nosuid),
#    built by the kernel's own bindeb-pkg from Debian's config of the base
#    with the series on and disablenetwork in CONFIG_LSM
#    (scripts/debian-config.sh) with its debug info and BTF kept
#    (systemd's RestrictFileSystems= loads a BPF LSM program that needs the
#    kernel's BTF; without it the boot logs an error and the option does
#    nothing), its modules trimmed by the kernel's own
#    localmodconfig to those a virtual machine uses (config/debian-modules):
#    Debian's thousand modules would triple the build on 2 cores and the
#    image would load none of them;
#  - nosuid_V_amd64.deb: the nosuid command, its man page, and the man
#    pages of the two prctls.
# linux-libc-dev is what gives "#include <linux/prctl.h>" PR_SET_NOSUID and
# PR_SET_NETWORK; its version is Debian's source version plus "+nosuid1", so
# it replaces the distribution's and says which Debian kernel it came from.
# Not in CI: the build alone takes about an hour on 2 cores.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
src=$B/linux
out=$top/build/deb
# dpkg-buildpackage writes the packages into the parent of the build
# directory: build/deb/.
obj=$out/obj-$BASE
jobs=$(($(nproc) + 1))
die() { echo "error: $*" >&2; exit 1; }
start=$(date +%s)

# shellcheck source=scripts/debian-config.sh
. "$top/scripts/debian-config.sh"
# bindeb-pkg checks its Build-Depends (scripts/package/mkdebian).
# pahole (dwarves) makes the BTF.
debian_config_deps dpkg-dev kmod debhelper libdw-dev dwarves
[ -f "$src/Makefile" ] || die "no kernel tree in $src: run make prepare"
[ -n "$DEB_VER" ] || die "the version of $DEB_PKG is unknown: run make prepare"
kmake() { make -C "$src" O="$obj" ARCH=x86_64 LOCALVERSION= \
	${CCACHE:+CC="ccache gcc"} "$@"; }
CCACHE=$(command -v ccache || true)

mkdir -p "$obj"
rm -f "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes
DEBIAN_BTF=1 debian_config "$obj" -nosuid
grep -v '^#' "$top/config/debian-modules" > "$obj/lsmod"
kmake -s LSMOD="$obj/lsmod" localmodconfig > "$obj/localmodconfig.log" 2>&1 ||
	die "localmodconfig failed ($obj/localmodconfig.log)"
# localmodconfig only turns modules off, but check the series' options anyway.
"$top/scripts/check-config.sh" "$obj/.config" "$obj/build-only.config"
echo "deb: Debian $(basename "$DEB_CONFIG") ${DEBIAN_FLAVOUR:-cloud-amd64} config, $(grep -c '=y$' "$obj/.config") built-in options, $(grep -c '=m$' "$obj/.config") modules, CONFIG_LSM=\"$(sed -n 's/^CONFIG_LSM="\(.*\)"$/\1/p' "$obj/.config")\""

version=$DEB_VER+nosuid1
log=$out/bindeb-pkg.log
# Not linux-image-R-dbg: the debug info of vmlinux and the modules, a
# gigabyte to compress that a test machine never reads.
if ! DEB_BUILD_PROFILES=pkg.linux-upstream.nokerneldbg \
	kmake -j"$jobs" KDEB_PKGVERSION="$version" bindeb-pkg > "$log" 2>&1; then
	tail -20 "$log"
	die "bindeb-pkg failed ($log)"
fi
release=$(kmake -s kernelrelease)

# The nosuid command, built against the series' uapi headers.
kmake -s headers
pkg=$out/nosuid-pkg
rm -rf "$pkg"
mkdir -p "$pkg/DEBIAN" "$pkg/usr/bin" "$pkg/usr/share/man/man1" \
	"$pkg/usr/share/man/man2const" "$pkg/usr/share/doc/nosuid"
gcc -O2 -Wall -Werror -isystem "$obj/usr/include" -o "$pkg/usr/bin/nosuid" "$top/tools/nosuid.c"
strip "$pkg/usr/bin/nosuid"
gzip -9n < "$top/tools/nosuid.1" > "$pkg/usr/share/man/man1/nosuid.1.gz"
for m in "$top"/man/*.2const; do
	page=$pkg/usr/share/man/man2const/$(basename "$m").gz
	gzip -9n < "$m" > "$page"
done
cat > "$pkg/usr/share/doc/nosuid/copyright" <<EOF
nosuid: the command-line front end of the kernel's PR_SET_NOSUID and
PR_SET_NETWORK, from the nosuid series.

License: GPL-2.0
 On Debian systems the full text of the GNU General Public License
 version 2 is in /usr/share/common-licenses/GPL-2.
EOF
# dpkg-shlibdeps wants a debian/control to look at.
mkdir -p "$pkg.shlibs/debian"
printf 'Source: nosuid\n\nPackage: nosuid\nArchitecture: any\n' > "$pkg.shlibs/debian/control"
depends=$(cd "$pkg.shlibs" && dpkg-shlibdeps -O "$pkg/usr/bin/nosuid" | sed -n 's/^shlibs:Depends=//p')
rm -rf "$pkg.shlibs"
tool_version=$(sed -n 's/^\.TH NOSUID 1 [^"]*"nosuid \([0-9.]*\)".*/\1/p' "$top/tools/nosuid.1")-1
cat > "$pkg/DEBIAN/control" <<EOF
Package: nosuid
Version: $tool_version
Architecture: amd64
Maintainer: $(git -C "$top" log -1 --format='%an <%ae>')
Depends: $depends
Recommends: linux-image-$release
Section: admin
Priority: optional
Description: run a command that can never gain privilege through exec
 nosuid sets PR_SET_NOSUID on itself and executes a command: from then on
 setuid and setgid bits and file capabilities are ignored for the command
 and everything it starts.  --no-network also closes the network gate
 (PR_SET_NETWORK): no new network access but AF_UNIX.  --netns gives the
 command a network namespace of its own, without privilege.
 .
 Needs a kernel with the nosuid series (linux-image-$release).
EOF
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$out/nosuid_${tool_version}_amd64.deb" > /dev/null
rm -rf "$pkg"

echo "deb: $release ($DEB_LABEL plus the series), built in $(( $(date +%s) - start )) s:"
for d in "$out"/*.deb; do
	printf '  %-60s %6s KiB  %s\n' "$(basename "$d")" "$(( $(stat -c %s "$d") / 1024 ))" \
		"$(dpkg-deb -f "$d" Package Version | paste -sd' ')"
done
