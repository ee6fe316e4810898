// SPDX-License-Identifier: GPL-2.0
/*
 * as-user CMD [ARG...]: run CMD as the unprivileged test user, uid and gid
 * 1000 with no supplementary groups (and therefore no capabilities).
 * busybox's setpriv cannot change ids.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: as-user CMD [ARG...]\n");
		return 125;
	}
	if (setgroups(0, NULL) || setresgid(1000, 1000, 1000) ||
	    setresuid(1000, 1000, 1000)) {
		perror("as-user: dropping to uid 1000");
		return 125;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
