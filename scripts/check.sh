#!/bin/bash
# make check: boot the test kernel three times and summarise the TAP logs.
#  1. the normal boot runs every kselftest of the project;
#  2. a boot with the disablenetwork LSM left out of lsm= (the nosuid LSM,
#     which PR_SET_NOSUID needs, stays in) runs lsm_off,
#     which checks what must hold then: the prctls are EINVAL, nosuid and
#     the network work as before;
#  3. a boot with neither LSM in lsm= runs nosuid_lsm_off: PR_SET_NOSUID is
#     EINVAL without the nosuid LSM, whose rules make the flag worth having.
# Prints one line per test, then "N passed, N failed, N skipped"; fails when
# a boot did not finish, anything failed or nothing passed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
rc=0
"$top/scripts/boot.sh" check || rc=1
taps=("$B/kselftest.tap")
if [ -d "$B/kselftest-root/kselftest/lsm_off" ]; then
	BOOT_NAME=nolsm "$top/scripts/boot.sh" check hsuite=lsm_off \
		lsm=landlock,lockdown,yama,nosuid || rc=1
	taps+=(boot="lsm without disablenetwork" "$B/kselftest-nolsm.tap")
fi
if [ -d "$B/kselftest-root/kselftest/nosuid_lsm_off" ]; then
	BOOT_NAME=nonosuid "$top/scripts/boot.sh" check hsuite=nosuid_lsm_off \
		lsm=landlock,lockdown,yama || rc=1
	taps+=(boot="lsm without nosuid" "$B/kselftest-nonosuid.tap")
fi
if [ $rc -ne 0 ]; then
	echo "error: a boot did not finish; no summary" >&2
	exit 1
fi
awk -f "$top/scripts/tap-summary.awk" "${taps[@]}"
