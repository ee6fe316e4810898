// SPDX-License-Identifier: GPL-2.0
/*
 * show-ids: print the real and effective ids.  The image installs a copy
 * setuid and setgid root as /usr/local/bin/suid-show-ids, for the demo.
 */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("uid=%d euid=%d gid=%d egid=%d\n", getuid(), geteuid(),
	       getgid(), getegid());
	return 0;
}
