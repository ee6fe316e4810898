#!/bin/bash
# make debian-config-check: the series in a distribution kernel.
# Debian's own config of the base (scripts/debian-config.sh), with the
# options the test guest needs turned into built-ins by the project's
# fragments (the guest loads no modules).  Only bzImage is built: the
# modules of the config are left out.  Then the harness's image boots on
# it: which LSMs are active, and the project's whole suite.
# Not in CI (a large build of its own: 3370 s on 2026-12-04; DESIGN.md,
# Reliability).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
src=$B/linux
obj=$B/obj-debian
log=$B/debian
flavour=${DEBIAN_FLAVOUR:-cloud-amd64}
die() { echo "error: $*" >&2; exit 1; }
start=$(date +%s)

# shellcheck source=scripts/debian-config.sh
. "$top/scripts/debian-config.sh"
debian_config_deps
[ -r "$B/initramfs.cpio" ] || die "$B/initramfs.cpio missing: run make image"

kmake() { make -C "$src" O="$obj" ARCH=x86_64 LOCALVERSION= \
	${CCACHE:+CC="ccache gcc"} "$@"; }
CCACHE=$(command -v ccache || true)
mkdir -p "$obj" "$log"
# The fragments' options must survive (a dropped one would make a test
# pass or skip for the wrong reason); LOCALVERSION is ours to change.
grep -v LOCALVERSION "$top/config/kernel.config" > "$obj/kernel-no-localversion.config"
frags=("$obj/kernel-no-localversion.config" "$top"/selftests/*/config)
[ -f "$top/config/base-$BASE.config" ] && frags+=("$top/config/base-$BASE.config")
debian_config "$obj" -nosuid-debian "${frags[@]}"
echo "debian config: $(grep -c '=y$' "$obj/.config") built-in options, CONFIG_LSM=\"$(sed -n 's/^CONFIG_LSM="\(.*\)"$/\1/p' "$obj/.config")\""
kmake -s -j"$(($(nproc) + 1))" bzImage
release=$(kmake -s kernelrelease)
echo "debian config: built $release in $(( $(date +%s) - start )) s"

boot() { BZIMAGE=$obj/arch/x86/boot/bzImage LOGDIR=$log BOOT_TIMEOUT=900 \
	KERNEL_LABEL="kernel: $release (Debian $flavour config + series)" \
	"$top/scripts/boot.sh" "$@"; }
show='echo "lsm: $(cat /sys/kernel/security/lsm)"
echo "apparmor enabled: $(cat /sys/module/apparmor/parameters/enabled)"
echo "apparmor policy interface: $(ls /sys/kernel/security/apparmor | tr "\n" " ")"'
boot root hcmd="$(printf '%s\n' "$show" | base64 -w0)" ||
	die "the boot that shows the LSMs failed"
boot check || die "the suite's boot did not finish"
rc=0
awk -f "$top/scripts/tap-summary.awk" "$log/kselftest.tap" > "$log/summary.txt" || rc=1
grep -v '^PASS' "$log/summary.txt" || true
echo "debian-config-check: $(( $(date +%s) - start )) s"
exit $rc
