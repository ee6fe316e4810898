#!/bin/bash
# make series-apply-check: what a maintainer does with
# build/$BASE/series/.  Unpack a fresh copy of the base's tarball
# (linux-source-$BASE; nothing shared with build/$BASE/linux), apply the
# mails with "git am -3", build that tree with the project's test config
# plus the config file of every selftests directory the series adds, build
# those selftests with the kernel's own selftests Makefile (TARGETS=...),
# boot, and run them (scripts/series-selftests-boot.sh).  Not in CI: it is
# a full kernel build of its own (1065 s on 2026-12-04 with a cold cache
# on two cores: build 929 s, two boots).
# SERIES_UPTO=N applies only the first N mails: at a layer boundary (the
# last selftests patch of a layer: 5 and 13 in v1) that is the bisection
# check of the layer, which then runs the selftests that prefix has.
# usage: series-apply-check.sh (after make series and make image)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
d=$B/series-apply
src=$d/linux
obj=$d/obj
tarball=$TARBALL
jobs=$(($(nproc) + 1))
die() { echo "error: $*" >&2; exit 1; }
git() { command git -C "$src" -c user.name="series apply check" \
	-c user.email=check@localhost "$@"; }
start=$(date +%s)

mapfile -t mails < <(ls "$B"/series/*/*.patch 2>/dev/null | grep -v -- '/0000-cover-letter\.patch$')
[ ${#mails[@]} -gt 0 ] || die "no patches in $B/series: run make series"
total=${#mails[@]}
upto=${SERIES_UPTO:-$total}
[[ $upto =~ ^[1-9][0-9]*$ ]] && [ "$upto" -le ${#mails[@]} ] ||
	die "SERIES_UPTO=$upto: the series has ${#mails[@]} patches"
mails=("${mails[@]:0:upto}")
for t in vm-exit as-user netstamp-hold; do
	[ -x "$B/tools/$t" ] || die "$B/tools/$t missing: run make image"
done

rm -rf "$d"
mkdir -p "$src"
tar -C "$src" -xJf "$tarball" --strip-components=1
git init -q
git add -f -A .
git commit -q -m base
git tag base
echo "fresh tree: $(make -s -C "$src" kernelversion) from $tarball ($DEB_LABEL), applying ${#mails[@]} mails, up to $(basename "${mails[-1]}")"
git am -q -3 "${mails[@]}" || die "the series does not apply with git am -3 (see git -C $src am --show-current-patch)"

# The selftests directories the series adds or changes, and their config
# files; lsm (upstream's, which lists the active LSMs) runs in any case.
mapfile -t targets < <("$top/scripts/series-selftests.sh" "$src")
[ ${#targets[@]} -gt 0 ] || die "the series adds no selftests directory"
echo "series selftests: ${targets[*]}"
frags=("$top/config/kernel.config" "$top/config/upstream.config")
[ -f "$top/config/base-$BASE.config" ] && frags+=("$top/config/base-$BASE.config")
for t in "${targets[@]}"; do
	[ -f "$src/tools/testing/selftests/$t/config" ] &&
		frags+=("$src/tools/testing/selftests/$t/config")
done
# A prefix lacks the options of later patches: drop those (and say which)
# from the project's fragments, so that check-config stays strict on the rest.
if [ "$upto" -lt "$total" ]; then
	grep -rhoE '^[[:space:]]*(menu)?config[[:space:]]+[A-Z0-9_]+' --include='Kconfig*' "$src" |
		awk '{ print "CONFIG_" $2 }' | sort -u > "$d/symbols"
	for i in 0 1; do
		f=$d/$(basename "${frags[$i]}")
		awk -F'[= ]' -v syms="$d/symbols" '
			BEGIN { while ((getline s < syms) > 0) known[s] = 1 }
			/^CONFIG_/ && !($1 in known) { print "not in this prefix: " $0 > "/dev/stderr"; next }
			{ print }' "${frags[$i]}" > "$f"
		frags[$i]=$f
	done
fi

kmake() { make -C "$src" O="$obj" ARCH=x86_64 LOCALVERSION= \
	${CCACHE:+CC="ccache gcc"} "$@"; }
CCACHE=$(command -v ccache || true)
mkdir -p "$obj"
kmake -s tinyconfig
(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
	"${frags[@]}" > "$obj/merge.log")
kmake -s olddefconfig
"$top/scripts/check-config.sh" "$obj/.config" "${frags[@]}"
kmake -s -j"$jobs" bzImage
kmake -s headers
echo "built $(kmake -s kernelrelease) in $(( $(date +%s) - start )) s"

"$top/scripts/series-selftests-boot.sh" "$src" "$obj" "$d" \
	"fresh tree + build/$BASE/series up to patch $upto ($(kmake -s kernelrelease))" "${targets[@]}"
echo "series-apply-check: $(( $(date +%s) - start )) s"
