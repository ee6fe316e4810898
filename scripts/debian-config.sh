# shellcheck shell=bash disable=SC2154
# Sourced by debian-config-check.sh and deb.sh: Debian's own config of the
# base (linux-config-$BASE, cloud-amd64 flavour unless DEBIAN_FLAVOUR says
# otherwise) with the series' options and fragments merged over it.
# Changes that only drop build dependencies: no BTF or debug info (pahole)
# unless DEBIAN_BTF=1 (make deb: systemd's RestrictFileSystems= loads a BPF
# LSM program that needs the kernel's BTF; the host's pahole may be older
# than Debian's, and olddefconfig drops what it cannot do), no Debian
# certificates (not in the source package; the lockdown LSM keeps
# MODULE_SIG on, so the build makes its own signing key with openssl).
# CONFIG_LSM is Debian's list plus nosuid and disablenetwork, as a distribution that
# takes the series would set it.
# Needs $top, $B, $BASE, $DEB_CONFIG (scripts/base.sh) and die().

# debian_config_deps: the host packages such a build needs beyond the test
# config's (installed when root, else a one-line error).
debian_config_deps() {
	local need=() p
	if [ "$BASE" = 6.12 ]; then
		[ -d "$DEB_CONFIG" ] || need+=(linux-config-6.12)
	else
		[ -d "$DEB_CONFIG" ] || die "$DEB_CONFIG missing: run make prepare (scripts/fetch-source.sh)"
	fi
	for p in libssl-dev openssl "$@"; do
		dpkg -s "$p" > /dev/null 2>&1 || need+=("$p")
	done
	[ ${#need[@]} -eq 0 ] && return
	[ "$(id -u)" -eq 0 ] || die "missing: apt-get install ${need[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" > /dev/null ||
		die "apt-get install ${need[*]} failed"
}

# debian_config OBJ LOCALVERSION FRAGMENT...: write OBJ/.config and check
# that every line of the fragments survived (check-config.sh).
debian_config() {
	local obj=$1 localversion=$2 flavour=${DEBIAN_FLAVOUR:-cloud-amd64} lsm
	shift 2
	local cfg=$DEB_CONFIG/config.amd64_none_$flavour.xz
	[ -r "$cfg" ] || die "$cfg not found"
	mkdir -p "$obj"
	xz -dc "$cfg" > "$obj/debian.config"
	lsm=$(sed -n 's/^CONFIG_LSM="\(.*\)"$/\1/p' "$obj/debian.config")
	[ -n "$lsm" ] || die "$cfg has no CONFIG_LSM"
	if [ -n "${DEBIAN_BTF:-}" ]; then
		grep -qx 'CONFIG_DEBUG_INFO_BTF=y' "$obj/debian.config" ||
			die "$cfg has no CONFIG_DEBUG_INFO_BTF=y"
		: > "$obj/build-only.config"
	else
		cat > "$obj/build-only.config" <<EOC
# CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT is not set
CONFIG_DEBUG_INFO_NONE=y
# CONFIG_DEBUG_INFO_BTF is not set
EOC
	fi
	cat >> "$obj/build-only.config" <<EOC
CONFIG_SYSTEM_TRUSTED_KEYS=""
CONFIG_LOCALVERSION="$localversion"
CONFIG_SECURITY_DISABLENETWORK=y
EOC
	# The nosuid LSM comes before disablenetwork, where the base has it.
	if [ -f "$src/security/nosuid/Kconfig" ]; then
		printf 'CONFIG_SECURITY_NOSUID=y\nCONFIG_LSM="%s,nosuid,disablenetwork"\n' "$lsm"
	else
		printf 'CONFIG_LSM="%s,disablenetwork"\n' "$lsm"
	fi >> "$obj/build-only.config"
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/debian.config" "$@" "$obj/build-only.config" > "$obj/merge.log") ||
		die "merge_config.sh failed ($obj/merge.log)"
	make -s -C "$src" O="$obj" ARCH=x86_64 LOCALVERSION= olddefconfig
	"$top/scripts/check-config.sh" "$obj/.config" "$@" "$obj/build-only.config"
}
