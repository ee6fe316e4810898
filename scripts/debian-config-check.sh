#!/bin/bash
# make debian-config-check: the series in a distribution kernel.
# Debian's own config of the base (cloud-amd64 flavour, from the package
# linux-config-$BASE: installed for 6.12, fetched with the source for 7.3
# by scripts/fetch-source.sh), with the options the test guest needs
# turned into built-ins by the project's fragments (the guest loads no
# modules), CONFIG_LSM = Debian's list plus disablenetwork, and changes
# that only drop build dependencies: no BTF/debug info (pahole), and no
# Debian certificates (not in the source package; the lockdown LSM keeps
# MODULE_SIG on, so the build makes its own signing key with openssl and
# libssl-dev).  Only bzImage is built: the modules of the config are left
# out.  Then the harness's image boots on it: which LSMs are active, and
# the project's whole suite.
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

cfgdir=$DEB_CONFIG
need=()
if [ "$BASE" = 6.12 ]; then
	[ -d "$cfgdir" ] || need+=(linux-config-6.12)
else
	[ -d "$cfgdir" ] || die "$cfgdir missing: run make prepare (scripts/fetch-source.sh)"
fi
dpkg -s libssl-dev >/dev/null 2>&1 || need+=(libssl-dev)
command -v openssl >/dev/null || need+=(openssl)
if [ ${#need[@]} -gt 0 ]; then
	[ "$(id -u)" -eq 0 ] || die "missing: apt-get install ${need[*]}"
	apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
fi
cfg=$cfgdir/config.amd64_none_$flavour.xz
[ -r "$cfg" ] || die "$cfg not found"
[ -r "$B/initramfs.cpio" ] || die "$B/initramfs.cpio missing: run make image"

kmake() { make -C "$src" O="$obj" ARCH=x86_64 LOCALVERSION= \
	${CCACHE:+CC="ccache gcc"} "$@"; }
CCACHE=$(command -v ccache || true)
mkdir -p "$obj" "$log"
xz -dc "$cfg" > "$obj/debian.config"
debian_lsm=$(sed -n 's/^CONFIG_LSM="\(.*\)"$/\1/p' "$obj/debian.config")
frags=("$top"/config/kernel.config "$top"/selftests/*/config)
[ -f "$top/config/base-$BASE.config" ] && frags+=("$top/config/base-$BASE.config")
cat > "$obj/build-only.config" <<EOF
# CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT is not set
CONFIG_DEBUG_INFO_NONE=y
# CONFIG_DEBUG_INFO_BTF is not set
CONFIG_SYSTEM_TRUSTED_KEYS=""
CONFIG_LOCALVERSION="-nosuid-debian"
CONFIG_LSM="$debian_lsm,disablenetwork"
EOF
(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
	"$obj/debian.config" "${frags[@]}" "$obj/build-only.config" > "$obj/merge.log")
kmake -s olddefconfig
# The fragments' options must have survived (a dropped one would make a
# test pass or skip for the wrong reason); LOCALVERSION is ours to change.
grep -v LOCALVERSION "$top/config/kernel.config" > "$obj/kernel-no-localversion.config"
"$top/scripts/check-config.sh" "$obj/.config" "$obj/kernel-no-localversion.config" \
	"${frags[@]:1}" "$obj/build-only.config"
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
