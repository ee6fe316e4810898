// SPDX-License-Identifier: GPL-2.0
/*
 * Built in the guest by check.sh against the installed <linux/prctl.h>:
 * with -DHEADER_CHECK it only has to compile (the header defines the
 * series' prctls); otherwise it closes both gates and checks that they
 * took effect, with the control that socket(AF_INET) works before.
 * Prints one line; exit 0 when everything held.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/prctl.h>

#ifdef HEADER_CHECK
#if !defined(PR_SET_NOSUID) || !defined(PR_GET_NOSUID) || \
	!defined(PR_SET_NETWORK) || !defined(PR_GET_NETWORK) || !defined(PR_NETWORK_OFF)
#error "<linux/prctl.h> lacks the series' PR_SET_NOSUID/PR_SET_NETWORK"
#endif
#else
/* Only when the header check failed: the kernel is still worth testing. */
#ifndef PR_SET_NOSUID
#define PR_SET_NOSUID	0x4e535501
#define PR_GET_NOSUID	0x4e535502
#endif
#ifndef PR_SET_NETWORK
#define PR_SET_NETWORK	0x4e535503
#define PR_GET_NETWORK	0x4e535504
#define PR_NETWORK_OFF	1
#endif
#endif

static int try_socket(int family)
{
	int fd = socket(family, SOCK_STREAM, 0);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

int main(void)
{
	int e, r;

	if ((e = try_socket(AF_INET)))
		return printf("control: socket(AF_INET) before the prctls failed: %s\n", strerror(e)), 1;
	if (prctl(PR_SET_NOSUID, 1, 0, 0, 0))
		return printf("prctl(PR_SET_NOSUID): %s\n", strerror(errno)), 1;
	if ((r = prctl(PR_GET_NOSUID, 0, 0, 0, 0)) != 1)
		return printf("PR_GET_NOSUID returned %d (%s)\n", r, r < 0 ? strerror(errno) : "not 1"), 1;
	if (prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0))
		return printf("prctl(PR_SET_NETWORK, PR_NETWORK_OFF): %s\n", strerror(errno)), 1;
	if ((r = prctl(PR_GET_NETWORK, 0, 0, 0, 0)) != PR_NETWORK_OFF)
		return printf("PR_GET_NETWORK returned %d (%s)\n", r, r < 0 ? strerror(errno) : "not PR_NETWORK_OFF"), 1;
	e = try_socket(AF_INET);
	if (e != EPERM && e != EACCES)
		return printf("socket(AF_INET) after PR_NETWORK_OFF: %s\n", e ? strerror(e) : "succeeded"), 1;
	if ((r = try_socket(AF_UNIX)))
		return printf("socket(AF_UNIX) after PR_NETWORK_OFF: %s\n", strerror(r)), 1;
	printf("NOSUID 1, NETWORK OFF; socket(AF_INET) ok before, %s after; AF_UNIX ok\n", strerror(e));
	return 0;
}
