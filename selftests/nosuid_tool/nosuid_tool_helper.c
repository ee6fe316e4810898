// SPDX-License-Identifier: GPL-2.0
/*
 * What a command started by the nosuid tool sees, for nosuid_tool_test.
 * Each argument is a question, answered on lines "key: value":
 *
 *   ids       its user and group ids (the test runs a setuid-root copy)
 *   sockets   whether it may open an AF_INET and an AF_UNIX socket
 *   loopback  whether lo is up and 127.0.0.1 answers a UDP datagram
 *   netns     its network namespace
 *
 * Busybox cannot stand in: as a multi-call binary it may drop a setuid bit
 * itself, and its output formats are not ours to rely on.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *result(int ret)
{
	return ret < 0 ? strerrorname_np(errno) : "ok";
}

static int try_socket(int family, int type)
{
	int fd = socket(family, type, 0);

	if (fd >= 0)
		close(fd);
	return fd;
}

/* A datagram to ourselves on 127.0.0.1: lo up and addressed. */
static int udp_echo(void)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t len = sizeof(addr);
	struct pollfd pfd;
	char buf[4];
	int ret = -1;

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	pfd.fd = socket(AF_INET, SOCK_DGRAM, 0);
	pfd.events = POLLIN;
	if (pfd.fd < 0)
		return -1;
	if (bind(pfd.fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(pfd.fd, (struct sockaddr *)&addr, &len) ||
	    sendto(pfd.fd, "ping", 4, 0, (struct sockaddr *)&addr, len) != 4)
		goto out;
	ret = poll(&pfd, 1, 5000);
	if (ret == 0)
		errno = ETIMEDOUT;
	if (ret > 0)
		ret = recv(pfd.fd, buf, sizeof(buf), 0) == 4 ? 0 : -1;
	else
		ret = -1;
out:
	close(pfd.fd);
	return ret;
}

static void loopback(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	/* Interface ioctls work on any socket: AF_UNIX even behind the gate. */
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr))
		printf("lo: %s\n", strerrorname_np(errno));
	else
		printf("lo: %s\n", ifr.ifr_flags & IFF_UP ? "up" : "down");
	if (fd >= 0)
		close(fd);
	printf("udp: %s\n", result(udp_echo()));
}

int main(int argc, char *argv[])
{
	char ns[64];
	ssize_t len;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "ids")) {
			printf("uid=%u euid=%u gid=%u egid=%u\n", getuid(),
			       geteuid(), getgid(), getegid());
		} else if (!strcmp(argv[i], "sockets")) {
			printf("AF_INET: %s\n",
			       result(try_socket(AF_INET, SOCK_DGRAM)));
			printf("AF_UNIX: %s\n",
			       result(try_socket(AF_UNIX, SOCK_STREAM)));
		} else if (!strcmp(argv[i], "loopback")) {
			loopback();
		} else if (!strcmp(argv[i], "netns")) {
			len = readlink("/proc/self/ns/net", ns, sizeof(ns) - 1);
			printf("netns: %.*s\n", len < 0 ? 0 : (int)len, ns);
		} else {
			fprintf(stderr, "%s: unknown question '%s'\n", argv[0],
				argv[i]);
			return 2;
		}
	}
	return 0;
}
