#!/bin/sh
# Run by the user services of check 7: the process's flags, and whether
# setgid newgrp (as sg) still gains its privilege.
out=$1
{
	grep -E '^(NoNewPrivs|NoSUID|NoNetwork):' /proc/self/status
	sg nsgrp -c 'id -gn' 2>&1
	echo "sg-rc: $?"
} > "$out.tmp"
mv "$out.tmp" "$out"
