#!/bin/sh
# Check that the Debian packages the harness needs are installed.  As root,
# install the missing ones; otherwise print the exact apt-get line and fail.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"

# The kernel source: 6.12 is a package of the host's release; 7.3 is not,
# scripts/fetch-source.sh fetches it, checked with the Debian archive keys.
src_pkg=debian-archive-keyring
[ "$BASE" = 6.12 ] && src_pkg=linux-source-6.12
PKGS="$src_pkg gcc make qemu-system-x86 busybox-static libcap-dev
libcap-ng-dev bc flex bison libelf-dev libssl-dev cpio ccache xz-utils git rsync perl python3-ply python3-git
sparse python3-docutils mandoc"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q '^install ok installed$' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "error: missing Debian packages:$missing" >&2
	echo "run as root:  apt-get install -y$missing" >&2
	exit 1
fi
echo "installing missing packages:$missing"
export DEBIAN_FRONTEND=noninteractive
# Update the lists only when a package is not known at all.
for p in $missing; do
	apt-cache show "$p" >/dev/null 2>&1 || { apt-get update -q; break; }
done
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
