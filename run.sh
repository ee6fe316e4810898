#!/bin/bash
# The main job: build what is stale, boot the patched kernel in QEMU and
# run the demonstration as the unprivileged user (uid 1000).
#   ./run.sh              the scripted demo: a setuid-root program under
#                         nosuid, the network gate (TCP, UDP, AF_UNIX path and
#                         abstract, a socket connected before), unprivileged
#                         unshare -n, and what stays refused without nosuid;
#                         exit 0 only if every step behaved as promised
#   ./run.sh --shell      an interactive busybox shell as uid 1000 (the
#                         nosuid tool, netprobe and suid-show-ids are there)
#   ./run.sh -- CMD...    run CMD in the guest as uid 1000, return its status
#   ./run.sh --help       this text; "make check" runs the kselftests
# BASE=6.12 ./run.sh ... does the same on the 6.12 backport (default 7.3).
set -euo pipefail
cd "$(dirname "$0")"
top=$PWD
. scripts/base.sh
usage() {
	sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
}
mode=demo
case "${1:-}" in
-h | --help) usage; exit 0 ;;
--shell) mode=shell ;;
--) shift; [ $# -gt 0 ] || { usage >&2; exit 2; }; mode=cmd ;;
"") ;;
*) echo "run.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
esac
make --no-print-directory -s image >&2
if [ "$mode" = cmd ]; then
	HCMD=$(printf '%q ' "$@")
	exec scripts/boot.sh cmd "hcmd=$(printf '%s' "$HCMD" | base64 -w0)"
fi
exec scripts/boot.sh "$mode"
