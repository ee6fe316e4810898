#!/bin/sh
# The selftests directories that (a prefix of) the series in the git tree
# SRC adds or changes, and upstream's lsm, which lists the active LSMs: one
# per line.  Fails when the series has none.
# usage: series-selftests.sh SRC [COMMIT]
set -eu
dirs=$(git -C "$1" diff --name-only base "${2:-HEAD}" -- tools/testing/selftests/ |
	awk -F/ 'NF > 4 { print $4 }')
[ -n "$dirs" ] || { echo "error: $1 adds no selftests directory" >&2; exit 1; }
printf '%s\n' $dirs lsm | sort -u
