# shellcheck shell=sh
# The kernel base the harness works on, in one place: sourced by every
# script (after it sets "top", the repository) and by the Makefile, which
# exports BASE so that the scripts it runs agree with it.  Plain sh.
#   BASE=7.3   the default: Debian's linux-source-7.3 from trixie-backports,
#              fetched into build/apt/ by scripts/fetch-source.sh (when the
#              suite has none, sid's linux-source-7.2 stands in and every
#              label says so); the series in patches/{nosuid,network,userns,tsync}/
#   BASE=6.12  the installed package linux-source-6.12 (scripts/deps.sh);
#              the backport in patches/6.12/{nosuid,network,userns,tsync}/
# Sets B (the build directory, build/$BASE), PATCHDIR, TARBALL, DEB_PKG and
# DEB_VER (the Debian package and its version), DEB_CONFIG (where its
# linux-config package puts Debian's configs) and DEB_LABEL, which names
# them in messages.
BASE=${BASE:-7.3}
case $BASE in
7.3 | 6.12) ;;
*) echo "error: BASE=$BASE: the harness builds BASE=7.3 (the default) or BASE=6.12" >&2; exit 1 ;;
esac
export BASE
B=$top/build/$BASE
APT_DIR=$top/build/apt
DEB_SUITE=
if [ "$BASE" = 6.12 ]; then
	PATCHDIR=$top/patches/6.12
	DEB_PKG=linux-source-6.12
	DEB_VER=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) || DEB_VER=
	TARBALL=/usr/src/linux-source-6.12.tar.xz
	DEB_CONFIG=/usr/src/linux-config-6.12
else
	PATCHDIR=$top/patches
	DEB_PKG=linux-source-7.3 DEB_VER=
	# What fetch-source.sh fetched (DEB_PKG, DEB_VER, DEB_SUITE), written
	# inside the unpacked packages so that the two never disagree.
	# shellcheck disable=SC1091
	[ -r "$APT_DIR/root/fetched" ] && . "$APT_DIR/root/fetched"
	TARBALL=$APT_DIR/root/usr/src/$DEB_PKG.tar.xz
	DEB_CONFIG=$APT_DIR/root/usr/src/linux-config-${DEB_PKG#linux-source-}
fi
DEB_LABEL="Debian $DEB_PKG ${DEB_VER:-(version unknown)}"
[ "$DEB_PKG" = "linux-source-$BASE" ] ||
	DEB_LABEL="$DEB_LABEL from $DEB_SUITE, standing in for linux-source-$BASE"
# What the debug kernel's checkers print (KASAN, lockdep, UBSAN, ...): a
# console line matching it fails check-debug, soak and fuzz, unless it is
# one of the plain pr_warn() lines below that only look like one:
#   "WARNING: The mand mount option has been deprecated" (fs/namespace.c,
#   printed once when any caller passes MS_MANDLOCK, trinity for one).
# kernel_reports FILE prints the lines that count, with line numbers.
KERNEL_NOT_REPORTS='WARNING: The mand mount option has been deprecated'
kernel_reports() {
	sed 's/\r//g' "$1" 2> /dev/null | grep -nE "$KERNEL_REPORTS" | grep -vE "$KERNEL_NOT_REPORTS"
}
KERNEL_REPORTS='BUG:|WARNING:|KASAN:|UBSAN:|KFENCE:|possible circular locking|possible recursive locking|suspicious RCU usage|sleeping function called from invalid context|refcount_t:|Oops|general protection fault|INFO: task .* blocked|inconsistent lock state|DEBUG_LOCKS_WARN_ON|ODEBUG:'

# The scripts that build kernels run ccache bypassed, as the Makefile does,
# unless USE_CCACHE=1.
[ "${USE_CCACHE:-}" = 1 ] || export CCACHE_DISABLE=1

# debian_mirror: the Debian mirror the host's apt sources already name (the
# first URI, one-line or deb822, that is a Debian archive: path ending in
# /debian, not debian-security, not a third-party source), or nothing.
# fetch-source.sh and debian-image.sh fetch from it with a private apt
# configuration; the host's is never changed.
debian_mirror() {
	{ cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -n 's/^[[:space:]]*deb\(-src\)\{0,1\}[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]\{1,\}\)\{0,1\}\([^[:space:]]\{1,\}\).*/\3/p'
	cat /etc/apt/sources.list.d/*.sources 2>/dev/null | sed -n 's/^URIs:[[:space:]]*//p' | tr ' \t' '\n\n'
	} | grep -E '^(https?|ftp)://.*/debian/?$' | head -1 | sed 's|/$||' || true
}
