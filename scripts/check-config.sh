#!/bin/sh
# Fail when an option requested by a fragment is not in the final .config
# (merge_config.sh only warns; a silently dropped option would make a test
# pass or skip for the wrong reason).
# usage: check-config.sh DOTCONFIG FRAGMENT...
set -eu
dotconfig=$1
shift
bad=0
for frag in "$@"; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=n | "# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%%[= ]*}
			grep -q "^$sym=" "$dotconfig" || continue ;;
		CONFIG_*=*)
			grep -qxF "$line" "$dotconfig" && continue
			sym=${line%%=*} ;;
		*) continue ;;
		esac
		got=$(grep -E "^(# )?$sym[= ]" "$dotconfig" || echo "nothing: not selectable")
		echo "error: $frag asks for '$line', final .config has '$got'" >&2
		bad=1
	done < "$frag"
done
exit $bad
