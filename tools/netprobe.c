// SPDX-License-Identifier: GPL-2.0
/*
 * netprobe - tiny loopback servers and clients for the ./run.sh demo.
 *
 *   netprobe serve tcp|udp PORT | unix PATH | abstract NAME
 *	start an echo server in the background; return once it listens
 *   netprobe connect tcp|udp PORT | unix PATH | abstract NAME
 *	connect, send "ping", expect it back
 *   netprobe sendto udp PORT	unconnected UDP datagram with an address
 *   netprobe hold tcp PORT CMD...	connect as fd 3, then exec CMD
 *   netprobe use FD		ping over an already connected socket
 *   netprobe gate		prctl(PR_SET_NETWORK, PR_NETWORK_OFF) alone
 *   netprobe ids		print uid and euid
 *
 * Each client prints "ok" or the error the kernel returned, and exits 0 on
 * success, 1 on failure, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <stddef.h>
#include <unistd.h>

#ifndef PR_SET_NETWORK
#define PR_SET_NETWORK	0x4e535503
#define PR_NETWORK_OFF	1
#endif

static int usage(void)
{
	fprintf(stderr, "usage: netprobe serve|connect tcp|udp PORT | unix PATH | abstract NAME\n"
		"       netprobe sendto udp PORT | hold tcp PORT CMD... | use FD | gate | ids\n");
	return 2;
}

static int fail(const char *what)
{
	printf("%s: %s\n", what, strerror(errno));
	return 1;
}

/* Fill @ss for KIND and ARG; return the socket type, or -1. */
static int address(const char *kind, const char *arg,
		   struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_un *sun = (struct sockaddr_un *)ss;
	int abstract = !strcmp(kind, "abstract");

	memset(ss, 0, sizeof(*ss));
	if (!strcmp(kind, "tcp") || !strcmp(kind, "udp")) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(atoi(arg));
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		*len = sizeof(*sin);
		return kind[0] == 't' ? SOCK_STREAM : SOCK_DGRAM;
	}
	if (!strcmp(kind, "unix") || abstract) {
		sun->sun_family = AF_UNIX;
		strncpy(sun->sun_path + abstract, arg, sizeof(sun->sun_path) - 2);
		*len = offsetof(struct sockaddr_un, sun_path) + abstract + strlen(arg);
		return SOCK_STREAM;
	}
	return -1;
}

static void echo(int fd, int type)
{
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	char buf[256];
	ssize_t n;

	if (type == SOCK_DGRAM) {
		while ((n = recvfrom(fd, buf, sizeof(buf), 0,
				     (struct sockaddr *)&peer, &plen)) > 0) {
			sendto(fd, buf, n, 0, (struct sockaddr *)&peer, plen);
			plen = sizeof(peer);
		}
		return;
	}
	for (;;) {
		int c = accept(fd, NULL, NULL);

		if (c < 0)
			return;
		if (fork() == 0) {
			while ((n = read(c, buf, sizeof(buf))) > 0)
				write(c, buf, n);
			_exit(0);
		}
		close(c);
	}
}

static int serve(const char *kind, const char *arg)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int type = address(kind, arg, &ss, &len), fd, one = 1;

	if (type < 0)
		return usage();
	fd = socket(ss.ss_family, type, 0);
	if (fd < 0)
		return fail("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_UNIX)
		unlink(((struct sockaddr_un *)&ss)->sun_path);
	if (bind(fd, (struct sockaddr *)&ss, len))
		return fail("bind");
	if (type == SOCK_STREAM && listen(fd, 16))
		return fail("listen");
	/*
	 * Listening now: detach, so the caller can go on, and let go of its
	 * stdout, which may be a pipe that someone reads to its end.
	 */
	if (fork() == 0) {
		int null = open("/dev/null", O_RDWR);

		setsid();
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		echo(fd, type);
		_exit(0);
	}
	return 0;
}

static int ping(int fd)
{
	char buf[8] = "";

	if (write(fd, "ping", 4) != 4)
		return fail("send");
	if (read(fd, buf, sizeof(buf)) != 4 || memcmp(buf, "ping", 4)) {
		errno = errno ? errno : EIO;
		return fail("no echo");
	}
	printf("ok\n");
	return 0;
}

static int client(const char *kind, const char *arg, int keep_as_3)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int type = address(kind, arg, &ss, &len), fd;
	struct timeval tv = { .tv_sec = 2 };

	if (type < 0)
		return usage();
	fd = socket(ss.ss_family, type, 0);
	if (fd < 0)
		return fail("socket");
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&ss, len))
		return fail("connect");
	if (keep_as_3)
		return dup2(fd, 3) == 3 ? 0 : fail("dup2");
	return ping(fd);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "serve") && argc == 4)
		return serve(argv[2], argv[3]);
	if (!strcmp(cmd, "connect") && argc == 4)
		return client(argv[2], argv[3], 0);
	if (!strcmp(cmd, "hold") && argc > 4) {
		if (client(argv[2], argv[3], 1))
			return 1;
		execvp(argv[4], argv + 4);
		return fail(argv[4]);
	}
	if (!strcmp(cmd, "use") && argc == 3)
		return ping(atoi(argv[2]));
	if (!strcmp(cmd, "sendto") && argc == 4 && !strcmp(argv[2], "udp")) {
		struct sockaddr_storage ss;
		socklen_t len;
		int fd;

		address("udp", argv[3], &ss, &len);
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd < 0)
			return fail("socket");
		if (sendto(fd, "ping", 4, 0, (struct sockaddr *)&ss, len) != 4)
			return fail("sendto");
		printf("ok\n");
		return 0;
	}
	if (!strcmp(cmd, "gate") && argc == 2) {
		if (prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0))
			return fail("prctl(PR_SET_NETWORK)");
		printf("ok\n");
		return 0;
	}
	if (!strcmp(cmd, "ids") && argc == 2) {
		printf("uid=%d euid=%d\n", getuid(), geteuid());
		return 0;
	}
	return usage();
}
