// SPDX-License-Identifier: GPL-2.0
/*
 * Exec'd by prctl_test: prints what PR_GET_NETWORK says in the new program
 * image ("1" once the network is off), or "-errno".
 */
#include <errno.h>
#include <stdio.h>
#include <sys/prctl.h>

int main(void)
{
	int ret = prctl(PR_GET_NETWORK, 0, 0, 0, 0);

	printf("%d\n", ret < 0 ? -errno : ret);
	return 0;
}
