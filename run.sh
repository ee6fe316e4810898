#!/bin/bash
# The main job: build what is stale, boot the patched kernel in QEMU and
# run the demonstration as the unprivileged user.
#   ./run.sh              the scripted demo of the series
#   ./run.sh --shell      an interactive busybox shell as uid 1000
#   ./run.sh -- CMD...    run CMD in the guest as uid 1000, return its status
#   ./run.sh --help
set -euo pipefail
cd "$(dirname "$0")"
usage() {
	sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
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
