#!/bin/bash
# make series: the series as a maintainer receives it, in
# build/$BASE/series/.  In a worktree of build/$BASE/linux at "base"
# (build/$BASE/series-tree), each layer's patches (from the base's patch
# directory) are applied with "git am -3", then its selftests as patches
# of their own, under the names upstream would use, copied from selftests/
# (the single copy) and added to tools/testing/selftests/Makefile.  Then
# git format-patch --cover-letter -v$SERIES_VERSION, the cover letter from
# series/cover-letter.txt with bench/RESULTS.md's table and
# get_maintainer.pl's output filled in.
# usage: make-series.sh (from the top of the project)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
src=$B/linux
tree=$B/series-tree
out=$B/series
version=${SERIES_VERSION:-3}	# v2: rebased on 7.3; v3: the TSYNC flags
ident="Seed 37d50b78 maintainers <maintainers@users.noreply.a-seed-37d50b78.example>"
die() { echo "error: $*" >&2; exit 1; }

# layer -> "project-dir:upstream-dir" pairs, and what each tests.
selftests_of() {
	case $1 in
	nosuid) echo "nosuid:nosuid" ;;
	network) echo "network:disablenetwork lsm_off:disablenetwork_lsm_off fuzz:nosuid_fuzz" ;;
	userns) echo "userns:nosuid_netns" ;;
	esac
}
subject_of() {
	case $1 in
	nosuid) echo "add tests for PR_SET_NOSUID" ;;
	disablenetwork) echo "add tests for the disablenetwork gate" ;;
	disablenetwork_lsm_off) echo "check a boot without the LSM" ;;
	nosuid_fuzz) echo "fuzz the nosuid and network prctls" ;;
	nosuid_netns) echo "test unprivileged CLONE_NEWNET under nosuid" ;;
	esac
}
what_of() {
	case $1 in
	nosuid) echo "PR_SET_NOSUID: exec grants nothing, who may set it, ptrace, TIOCSTI, prlimit and session keyrings, with a setuid-root helper as the confusion test" ;;
	disablenetwork) echo "the disablenetwork gate: socket families, bind, connect, listen, addressed and control-message sends, kept sockets and their options, io_uring, ptrace, TUN/vhost, keys, races on two CPUs" ;;
	disablenetwork_lsm_off) echo "a kernel built with disablenetwork and booted without it: the prctls are EINVAL and nothing else changes" ;;
	nosuid_fuzz) echo "a bounded fuzzer of both prctls from random privilege states and of the socket calls behind the gate (fixed seed, --seed and --iterations)" ;;
	nosuid_netns) echo "unprivileged unshare(CLONE_NEWNET) for nosuid tasks: the switch, the per-user limits, loopback, and a namespace storm" ;;
	esac
}

[ -f "$top/series/cover-letter.txt" ] || die "series/cover-letter.txt missing"
git -C "$src" rev-parse -q --verify base >/dev/null || die "no tag base in $src: run make first"
git -C "$src" worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
git -C "$src" worktree prune
git -C "$src" worktree add -q --detach "$tree" base
g() { git -C "$tree" -c user.name="${ident% <*}" -c user.email="$(echo "$ident" | sed 's/.*<\(.*\)>/\1/')" "$@"; }

for layer in nosuid network userns; do
	g am -q -3 "$PATCHDIR/$layer"/*.patch ||
		die "${PATCHDIR#"$top"/}/$layer does not apply to base (git am -3)"
	for pair in $(selftests_of "$layer"); do
		from=${pair%%:*} to=${pair#*:}
		dst=$tree/tools/testing/selftests/$to
		mkdir -p "$dst"
		cp -a "$top/selftests/$from/." "$dst/"
		# What the build leaves behind, as other selftests do.
		(cd "$dst" && sed -n 's/^TEST_GEN_PROGS\(_EXTENDED\)\{0,1\} *:\{0,1\}= *//p' Makefile |
			tr ' ' '\n' | sed '/^$/d' | sed 's|^|/|' | sort) > "$dst/.gitignore"
		# TARGETS, kept sorted.
		awk -v t="$to" '
			/^TARGETS \+= / && !done && $3 > t { print "TARGETS += " t; done = 1 }
			{ print }' "$tree/tools/testing/selftests/Makefile" > "$tree/mk.tmp"
		mv "$tree/mk.tmp" "$tree/tools/testing/selftests/Makefile"
		# The directory joins its feature's MAINTAINERS entry.
		section="NOSUID (PR_SET_NOSUID)"
		case $to in disablenetwork*) section="DISABLENETWORK SECURITY MODULE" ;; esac
		awk -v s="$section" -v f="F:	tools/testing/selftests/$to/" '
			$0 == s { in_s = 1 }
			in_s && /^$/ { print f; in_s = 0; done = 1 }
			{ print }
			END { if (in_s && !done) print f }' "$tree/MAINTAINERS" > "$tree/mt.tmp"
		mv "$tree/mt.tmp" "$tree/MAINTAINERS"
		g add -f "tools/testing/selftests/$to" tools/testing/selftests/Makefile MAINTAINERS
		g commit -q -s -m "selftests/$to: $(subject_of "$to")" -m "$(echo "Tests of $(what_of "$to")." | fold -s -w 72 | sed 's/ *$//')" -m "The tests run as root and drop to uid 1000 where they need an
unprivileged task; each restriction is checked together with a control
showing that the same operation succeeds without it.  The config file
lists what the kernel needs; run them with

  make -C tools/testing/selftests \\
	TARGETS=$to run_tests"
	done
done

rm -rf "$out"
mkdir -p "$out"
# Reviewers, from the tree's MAINTAINERS (the series adds its own entries).
maint=$(cd "$tree" && git format-patch -q --stdout base..HEAD |
	perl scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats 2>/dev/null) ||
	die "get_maintainer.pl failed"
to_cc=()
while IFS= read -r m; do
	[ -n "$m" ] && to_cc+=(--cc "$m")
done <<< "$maint"
g format-patch -q --cover-letter -v"$version" --zero-commit --no-signature \
	--to "linux-security-module@vger.kernel.org" "${to_cc[@]}" \
	-o "$out" base..HEAD

# The cover letter: subject and body from series/cover-letter.txt.
cover=$(ls "$out"/*0000-cover-letter.patch)
subject=$(head -1 "$top/series/cover-letter.txt")
bench=$({ sed -n '/^## Tasks that do not use the series/,/^## Refusals/p' "$top/bench/RESULTS.md" | sed '$d';
	sed -n '/^## Goals/,$p' "$top/bench/RESULTS.md"; } | sed 's/^## //')
python3 - "$cover" "$top/series/cover-letter.txt" "$subject" "$bench" "$maint" <<'EOF'
import sys
cover, body_file, subject, bench, maint = sys.argv[1:6]
body = open(body_file).read().split("\n", 2)[2].rstrip("\n")
import textwrap
# Plain text: the tables stay as they are, the prose is wrapped at 72.
bench = "\n".join(l if l.startswith("|") else textwrap.fill(l, 72)
                  for l in bench.strip().split("\n"))
body = body.replace("@@BENCH@@", bench).replace("@@MAINTAINERS@@", maint.strip())
s = open(cover).read()
s = s.replace("*** SUBJECT HERE ***", subject).replace("*** BLURB HERE ***", body)
open(cover, "w").write(s)
EOF
ls "$out"
echo "series: $(ls "$out" | wc -l) files in $out (v$version, $(git -C "$tree" rev-list --count base..HEAD) patches)"
