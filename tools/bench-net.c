// SPDX-License-Identifier: GPL-2.0
/*
 * bench-net [ITERATIONS]: cost of the socket calls the disablenetwork LSM
 * hooks, for a task that never closed its gate.  Under QEMU
 * "-icount shift=0,sleep=off" one guest nanosecond is one instruction, so
 * the figures are instruction counts, repeatable from boot to boot.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	return sin;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000;
	struct sockaddr_in dst = loopback(9), any = loopback(0);
	long long t, base;
	char byte = 0;
	int i, fd;

	/* socket() + close(): the socket_create hook */
	t = now();
	for (i = 0; i < n; i++)
		close(socket(AF_INET, SOCK_DGRAM, 0));
	base = now() - t;
	printf("socket+close %lld\n", base / n);

	/* the same plus bind(): the socket_bind hook */
	t = now();
	for (i = 0; i < n; i++) {
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		bind(fd, (struct sockaddr *)&any, sizeof(any));
		close(fd);
	}
	printf("socket+bind+close %lld\n", (now() - t) / n);

	/* connect() of a UDP socket, again and again: socket_connect */
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	t = now();
	for (i = 0; i < n; i++)
		connect(fd, (struct sockaddr *)&dst, sizeof(dst));
	printf("connect %lld\n", (now() - t) / n);

	/* send() on the connected socket: socket_sendmsg without address */
	t = now();
	for (i = 0; i < n; i++)
		send(fd, &byte, 1, MSG_DONTWAIT);
	printf("send %lld\n", (now() - t) / n);

	/* sendto() with an address: socket_sendmsg with address */
	t = now();
	for (i = 0; i < n; i++)
		sendto(fd, &byte, 1, MSG_DONTWAIT, (struct sockaddr *)&dst,
		       sizeof(dst));
	printf("sendto %lld\n", (now() - t) / n);
	close(fd);
	return 0;
}
