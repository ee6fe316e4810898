// SPDX-License-Identifier: GPL-2.0
/*
 * nosuid_exec CMD [ARG...]: run CMD nosuid, as a sandboxing tool would:
 * prctl(PR_SET_NOSUID) and exec, so that the unmodified programs it starts
 * (busybox unshare -n in the tests) get what nosuid allows.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: nosuid_exec CMD [ARG...]\n");
		return 125;
	}
	if (prctl(PR_SET_NOSUID, 1, 0, 0, 0)) {
		perror("nosuid_exec: PR_SET_NOSUID");
		return 125;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
