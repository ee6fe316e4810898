#!/bin/bash
# make series: the posting as the maintainers would take it, in three
# parts, in build/$BASE/series/<n>-<name>/, each a mail series of its own
# with a cover letter from series/cover-<n>-<name>.txt:
#   1-nosuid  the nosuid core, its LSM, the disablenetwork gate (layers
#             nosuid and network), for the LSM list; on base
#   2-netns   unprivileged CLONE_NEWNET (layer userns), on top of part 1
#   3-tsync   PR_NOSUID_TSYNC and PR_NETWORK_TSYNC (layer tsync), on top
#             of part 1
# In a worktree of build/$BASE/linux (build/$BASE/series-tree), each part's
# patches (from the base's patch directory) are applied with "git am -3" on
# the part it builds on, then its selftests as patches of their own, under
# the names upstream would use, copied from selftests/ (the single copy)
# and added to tools/testing/selftests/Makefile.  Part 1 leaves out the
# TSYNC tests (tsync_test.c), which part 3 adds.  Then git format-patch
# --cover-letter per part.  The worktree ends with parts 1, 2 and 3 applied
# in that order, and its kernel must be build/$BASE/linux's: part 3 applies
# to part 1 alone and to parts 1 and 2.
# usage: make-series.sh (from the top of the project)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
src=$B/linux
tree=$B/series-tree
out=$B/series
ident="Seed 37d50b78 maintainers <maintainers@users.noreply.a-seed-37d50b78.example>"
die() { echo "error: $*" >&2; exit 1; }

# The parts: name, layers, the part it applies on, subject prefix.
PARTS="1-nosuid 2-netns 3-tsync"
layers_of() {
	case $1 in
	1-nosuid) echo "nosuid network" ;;
	2-netns) echo "userns" ;;
	3-tsync) echo "tsync" ;;
	esac
}
# "project-dir:upstream-dir" pairs each part posts.
selftests_of() {
	case $1 in
	1-nosuid) echo "nosuid:nosuid network:disablenetwork lsm_off:disablenetwork_lsm_off fuzz:nosuid_fuzz" ;;
	2-netns) echo "userns:nosuid_netns" ;;
	3-tsync) echo "nosuid:nosuid network:disablenetwork" ;;
	esac
}
subject_of() {	# PART DIR
	case $1:$2 in
	3-tsync:nosuid) echo "add tests for PR_NOSUID_TSYNC" ;;
	3-tsync:disablenetwork) echo "add tests for PR_NETWORK_TSYNC" ;;
	*:nosuid) echo "add tests for PR_SET_NOSUID" ;;
	*:disablenetwork) echo "add tests for the disablenetwork gate" ;;
	*:disablenetwork_lsm_off) echo "check a boot without the LSM" ;;
	*:nosuid_fuzz) echo "fuzz the nosuid and network prctls" ;;
	*:nosuid_netns) echo "test unprivileged CLONE_NEWNET under nosuid" ;;
	esac
}
what_of() {	# PART DIR
	case $1:$2 in
	3-tsync:nosuid) echo "PR_NOSUID_TSYNC: 1, 8 and 64 threads, a thread failing each precondition, a CLONE_VM process, and races on two CPUs with thread churn and another thread's setuid exec" ;;
	3-tsync:disablenetwork) echo "PR_NETWORK_TSYNC: every thread's gate or none, a CLONE_FILES sharer, a thread exiting during the check, and PTRACE_TRACEME toward another thread, raced on two CPUs" ;;
	*:nosuid) echo "PR_SET_NOSUID: exec grants nothing, who may set it, ptrace, /proc writes, prlimit, setpgid, TIOCSTI, terminals and session keyrings, with a setuid-root helper as the confusion test" ;;
	*:disablenetwork) echo "the disablenetwork gate: socket families, bind, connect, listen, addressed and control-message sends, kept sockets and their options, io_uring, ptrace, TUN/vhost, keys, races on two CPUs" ;;
	*:disablenetwork_lsm_off) echo "a kernel built with disablenetwork and booted without it: the prctls are EINVAL and nothing else changes" ;;
	*:nosuid_fuzz) echo "a bounded fuzzer of both prctls from random privilege states and of the socket calls behind the gate (fixed seed, --seed and --iterations)" ;;
	*:nosuid_netns) echo "unprivileged unshare(CLONE_NEWNET) for nosuid tasks: the switch, the per-user limits, loopback, and a namespace storm" ;;
	esac
}

for part in $PARTS; do
	[ -f "$top/series/cover-$part.txt" ] || die "series/cover-$part.txt missing"
done
git -C "$src" rev-parse -q --verify base >/dev/null || die "no tag base in $src: run make first"
git -C "$src" worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
git -C "$src" worktree prune
git -C "$src" worktree add -q --detach "$tree" base
g() { git -C "$tree" -c user.name="${ident% <*}" -c user.email="$(echo "$ident" | sed 's/.*<\(.*\)>/\1/')" "$@"; }

# Copy selftests/FROM to tools/testing/selftests/TO, without the TSYNC
# tests unless the part is 3-tsync, and commit it.
add_selftests() {	# PART FROM TO
	local part=$1 from=$2 to=$3 dst=$tree/tools/testing/selftests/$3
	mkdir -p "$dst"
	cp -a "$top/selftests/$from/." "$dst/"
	if [ "$part" != 3-tsync ]; then
		rm -f "$dst/tsync_test.c"
		sed -i -e 's/ tsync_test\b//' -e '/^\$(OUTPUT)\/tsync_test:/d' "$dst/Makefile"
	fi
	# What the build leaves behind, as other selftests do: the programs of
	# TEST_GEN_PROGS and TEST_GEN_PROGS_EXTENDED, continued lines included.
	awk '/^TEST_GEN_PROGS(_EXTENDED)? *:?= */ { on = 1; sub(/^[^=]*= */, "") }
		on { c = sub(/\\$/, ""); n = split($0, w, " ")
		     for (i = 1; i <= n; i++) print "/" w[i]; on = c }' "$dst/Makefile" |
		sort > "$dst/.gitignore"
	[ -s "$dst/.gitignore" ] || die "selftests/$from/Makefile: no programs found"
	# TARGETS, kept sorted.
	grep -qx "TARGETS += $to" "$tree/tools/testing/selftests/Makefile" || {
		awk -v t="$to" '
			/^TARGETS \+= / && !done && $3 > t { print "TARGETS += " t; done = 1 }
			{ print }' "$tree/tools/testing/selftests/Makefile" > "$tree/mk.tmp" &&
		mv "$tree/mk.tmp" "$tree/tools/testing/selftests/Makefile"; }
	# The directory joins its feature's MAINTAINERS entry.
	local section="NOSUID (PR_SET_NOSUID)"
	case $to in disablenetwork*) section="DISABLENETWORK SECURITY MODULE" ;; esac
	grep -qxF "F:	tools/testing/selftests/$to/" "$tree/MAINTAINERS" ||
		{ awk -v s="$section" -v f="F:	tools/testing/selftests/$to/" '
			$0 == s { in_s = 1 }
			in_s && /^$/ { print f; in_s = 0; done = 1 }
			{ print }
			END { if (in_s && !done) print f }' "$tree/MAINTAINERS" > "$tree/mt.tmp" &&
		mv "$tree/mt.tmp" "$tree/MAINTAINERS"; }
	g add -f "tools/testing/selftests/$to" tools/testing/selftests/Makefile MAINTAINERS
	g commit -q -s -m "selftests/$to: $(subject_of "$part" "$to")" -m "$(echo "Tests of $(what_of "$part" "$to")." | fold -s -w 72 | sed 's/ *$//')" -m "The tests run as root and drop to uid 1000 where they need an
unprivileged task; each restriction is checked together with a control
showing that the same operation succeeds without it.  The config file
lists what the kernel needs; run them with

  make -C tools/testing/selftests \\
	TARGETS=$to run_tests"
}

# Apply PART on the current HEAD of the worktree.
apply_part() {
	local part=$1 layer pair n=0
	for layer in $(layers_of "$part"); do
		ls "$PATCHDIR/$layer"/*.patch >/dev/null 2>&1 || continue
		g am -q -3 "$PATCHDIR/$layer"/*.patch ||
			die "${PATCHDIR#"$top"/}/$layer ($part) does not apply (git am -3 on $(g log -1 --format=%s))"
		n=$((n + 1))
	done
	[ $n -gt 0 ] || return 1
	for pair in $(selftests_of "$part"); do
		add_selftests "$part" "${pair%%:*}" "${pair#*:}"
	done
}

declare -A from_of to_of
from_of[1-nosuid]=base
apply_part 1-nosuid || die "no patches for part 1"
to_of[1-nosuid]=$(g rev-parse HEAD)
from_of[2-netns]=${to_of[1-nosuid]}
apply_part 2-netns && to_of[2-netns]=$(g rev-parse HEAD)
# Part 3 on part 1 alone, as posted...
from_of[3-tsync]=${to_of[1-nosuid]}
g checkout -q --detach "${to_of[1-nosuid]}"
if apply_part 3-tsync; then
	to_of[3-tsync]=$(g rev-parse HEAD)
	# ... and on parts 1 and 2, as the tree has them: that is the
	# kernel make builds.
	if [ -n "${to_of[2-netns]:-}" ]; then
		g checkout -q --detach "${to_of[2-netns]}"
		g cherry-pick "${to_of[1-nosuid]}..${to_of[3-tsync]}" >/dev/null ||
			die "part 3 does not apply on parts 1 and 2"
	fi
elif [ -n "${to_of[2-netns]:-}" ]; then
	g checkout -q --detach "${to_of[2-netns]}"
fi
differs=$(git -C "$src" diff --name-only HEAD "$(g rev-parse HEAD)" -- . ':!tools/testing/selftests' ':!MAINTAINERS')
[ -z "$differs" ] || die "parts 1+2+3 differ from ${src#"$top"/} in: $differs"

rm -rf "$out"
mkdir -p "$out"
total=0
for part in $PARTS; do
	[ -n "${to_of[$part]:-}" ] || continue
	range=${from_of[$part]}..${to_of[$part]}
	dir=$out/$part
	# Reviewers, from the tree's MAINTAINERS (the series adds its own entries).
	maint=$(cd "$tree" && git format-patch -q --stdout "$range" |
		perl scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats 2>/dev/null) ||
		die "get_maintainer.pl failed"
	to_cc=()
	while IFS= read -r m; do
		[ -n "$m" ] && to_cc+=(--cc "$m")
	done <<< "$maint"
	to=linux-security-module@vger.kernel.org
	[ "$part" = 2-netns ] && to=netdev@vger.kernel.org
	g format-patch -q --cover-letter --rfc --zero-commit --no-signature \
		--to "$to" "${to_cc[@]}" -o "$dir" "$range"
	cover=$(ls "$dir"/*0000-cover-letter.patch)
	python3 - "$cover" "$top/series/cover-$part.txt" <<'EOF'
import sys
cover, body_file = sys.argv[1:3]
subject, _, body = open(body_file).read().partition("\n\n")
s = open(cover).read()
s = s.replace("*** SUBJECT HERE ***", subject.strip())
s = s.replace("*** BLURB HERE ***", body.rstrip("\n"))
open(cover, "w").write(s)
EOF
	n=$(git -C "$tree" rev-list --count "$range")
	total=$((total + n))
	echo "series: $part: $n patches in ${dir#"$top"/}, on $([ "${from_of[$part]}" = base ] && echo base || echo "part 1"), cover letter $(($(wc -l < "$top/series/cover-$part.txt") - 2)) lines before its shortlog"
done
echo "series: $total patches in 3 parts; the kernel of parts 1+2+3 is ${src#"$top"/}'s"
