#!/bin/bash
# make series-check: what a maintainer's tools say about build/$BASE/series/,
# each of its parts (1-nosuid, 2-netns, 3-tsync) on its own:
#   0. the cover letter says its piece in at most 150 lines (before the
#      shortlog and diffstat git adds)
#   1. checkpatch.pl --strict on every patch: no error, no warning but the
#      ones justified in the cover letter (ALLOWED below)
#   2. sparse (make C=2) on the C files the series touches, on the patched
#      and the unpatched tree: no warning that the unpatched tree lacks
#   3. the changed uapi headers compile alone (the header test of
#      CONFIG_UAPI_HEADER_TEST) and pass scripts/headers_check.pl
#   4. scripts/kernel-doc -Wall on the new files: nothing
#   5. docutils parses the new and changed .rst files without a warning
#   6. the man pages pass mandoc -Tlint and groff -ww
# Builds and boots of each prefix are make bisect-check (not here: a
# kernel build per patch does not fit in CI's time).
# usage: series-check.sh (after make series, make, and the unpatched build)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
src=$B/linux
series=$B/series
log=$B/series-check
rc=0
fail() { echo "FAIL $*"; rc=1; }
mkdir -p "$log"
ls "$series"/*/*.patch >/dev/null 2>&1 || { echo "error: run make series first" >&2; exit 1; }

# 0. Cover letters.
for d in "$series"/*/; do
	part=$(basename "$d")
	lines=$(($(wc -l < "$top/series/cover-$part.txt") - 2))
	[ "$lines" -le 150 ] && echo "cover letter $part: $lines lines" ||
		fail "cover letter $part: $lines lines, more than 150"
done

# 1. checkpatch.  The task_prctl hook returns -ENOSYS for options that are
# not its own: that is security_task_prctl()'s "not mine" convention.
ALLOWED="ENOSYS means 'invalid syscall nr' and nothing else"
# The selftests keep four kinds of report that upstream's selftests have
# too, each said in the cover letter: the kselftest harness's idioms
# (SKIP(return, ...) in a macro, a macro that names its argument twice to
# assert on it and print it, "FIXTURE_DATA(x) *self" read as a
# multiplication), user-visible strings left whole, and errno == ENOSYS
# where a test asks whether the kernel has a system call.
SELFTEST_IGNORE=MACRO_WITH_FLOW_CONTROL,MACRO_ARG_REUSE,LONG_LINE_STRING,ENOSYS
# The task_prctl static calls repeat security.c's own __CALL_STATIC_INT:
# UNROLL() pastes one statement per slot, so the macro names the slot
# twice, jumps out of the loop and ends with its semicolon.
UNROLL_IGNORE=MACRO_WITH_FLOW_CONTROL,MACRO_ARG_REUSE,DO_WHILE_MACRO_WITH_TRAILING_SEMICOLON
n=0 dirty=0
for p in "$series"/*/*.patch; do
	case $p in *0000-cover-letter.patch) continue ;; esac
	n=$((n + 1))
	ignore=
	case $p in
	# Part 3 adds a file to directories whose MAINTAINERS entries part 1
	# made: checkpatch cannot tell, and asks.
	*/3-tsync/*-selftests-*) ignore="--ignore $SELFTEST_IGNORE,FILE_PATH_CHANGES" ;;
	*-selftests-*) ignore="--ignore $SELFTEST_IGNORE" ;;
	*-task_prctl-hooks-through-static-call*.patch) ignore="--ignore $UNROLL_IGNORE" ;;
	esac
	out=$(cd "$src" && PATH=/usr/bin:/bin:$PATH ./scripts/checkpatch.pl --strict --terse --show-types $ignore "$p" 2>&1)
	bad=$(echo "$out" | grep -E ': (ERROR|WARNING|CHECK):' | grep -vF "$ALLOWED" |
		grep -v "CHECK:SPACING: spaces preferred around that '\*' (ctx:WxV)")
	[ -z "$bad" ] || { fail "checkpatch ${p#"$series"/}:"$'\n'"$bad"; dirty=$((dirty + 1)); }
done
echo "checkpatch --strict: $n patches, $dirty with an unjustified report (justified: \"$ALLOWED\" in the LSM; $UNROLL_IGNORE in the task_prctl static calls; in selftests $SELFTEST_IGNORE and the FIXTURE_DATA '*' spacing; FILE_PATH_CHANGES in part 3's selftests, whose directories part 1 added to MAINTAINERS)"

# 2. sparse, patched against unpatched, on the same files.
files=$(git -C "$src" diff --name-only base HEAD -- '*.c' | grep -v '^tools/')
objs=$(for f in $files; do [ -f "$B/obj/${f%.c}.o" ] && echo "${f%.c}.o"; done)
sparse_run() {	# SRC OBJ OUT: the objects whose source SRC has
	local o list=
	for o in $objs; do [ -f "$1/${o%.o}.c" ] && list="$list $o"; done
	make -C "$1" O="$2" ARCH=x86_64 LOCALVERSION= C=2 CHECK="sparse" \
		$list > "$3.raw" 2>&1
	# Locations without line numbers and without the tree's own path.
	grep -E ': (warning|error):' "$3.raw" | sed -E "s|^$1/||; s/:[0-9]+:[0-9]+:/:/" | sort -u > "$3"
}
if [ -d "$B/obj-base" ] && [ -d "$B/linux-base" ]; then
	sparse_run "$src" "$B/obj" "$log/sparse-series"
	sparse_run "$B/linux-base" "$B/obj-base" "$log/sparse-base"
	new=$(comm -13 "$log/sparse-base" "$log/sparse-series")
	if [ -n "$new" ]; then
		fail "sparse: new warnings:"$'\n'"$new"
	else
		echo "sparse: $(echo "$objs" | wc -w) objects, $(wc -l < "$log/sparse-series") warnings patched, $(wc -l < "$log/sparse-base") unpatched, none new"
	fi
else
	fail "sparse: no unpatched build to compare with (make check-upstream or make bench builds it)"
fi

# 3. uapi headers, as CONFIG_UAPI_HEADER_TEST and headers_check do.  7.x's
# headers_check.pl takes no architecture argument any more; 6.12's does.
hc_arch=
grep -q 'headers_check.pl $(obj) $(SRCARCH)' "$src/usr/include/Makefile" && hc_arch=x86
for h in $(git -C "$src" diff --name-only base HEAD -- include/uapi); do
	u=$B/obj/usr/include/${h#include/uapi/}
	gcc -std=c90 -Wall -Werror -fsyntax-only -isystem "$B/obj/usr/include" \
		-x c /dev/null -include "$u" 2> "$log/uapi.err" &&
		perl "$src/usr/include/headers_check.pl" "$B/obj/usr/include" $hc_arch "$u" 2>> "$log/uapi.err" &&
		echo "uapi: $h compiles alone (C90) and passes headers_check" ||
		fail "uapi: $h: $(cat "$log/uapi.err")"
done

# 4. kernel-doc on the files the series adds.
new_files=$(git -C "$src" diff --name-only --diff-filter=A base HEAD -- '*.c' '*.h' | grep -v '^tools/')
kd=$(cd "$src" && ./scripts/kernel-doc -none -Wall $new_files 2>&1)
[ -z "$kd" ] && echo "kernel-doc -Wall: $(echo "$new_files" | wc -w) new files, nothing reported" ||
	fail "kernel-doc:"$'\n'"$kd"

# 5. reStructuredText.
rst=$(git -C "$src" diff --name-only base HEAD -- 'Documentation/*.rst')
(cd "$src" && /usr/bin/python3 "$top/scripts/rst-check.py" $rst) > "$log/rst" 2>&1 &&
	echo "docutils: $(echo "$rst" | wc -w) .rst files parse without a warning" ||
	fail "docutils:"$'\n'"$(cat "$log/rst")"

# 6. man pages.
for m in "$top"/man/*.2const "$top/tools/nosuid.1"; do
	out=$(mandoc -Tlint -W warning "$m" 2>&1; groff -man -ww -z "$m" 2>&1)
	[ -z "$out" ] || fail "man $(basename "$m"):"$'\n'"$out"
done
echo "man pages: $(ls "$top"/man/*.2const "$top/tools/nosuid.1" | wc -l) pages through mandoc -Tlint and groff -ww"

[ $rc -eq 0 ] && echo "series-check: passed" || echo "series-check: FAILED"
exit $rc
