// SPDX-License-Identifier: GPL-2.0
/*
 * A setuid-root program written the careless way: it tries a local
 * service and, when that fails, falls back on something only root may do
 * (append to a root-owned file).  Installed setuid root by setuid_test.
 *
 * usage: setuid_helper PORT FILE
 * prints: euid=N secure=N net=ERRNO fallback=ERRNO (-1: not tried)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int fd, net = 0, fallback = -1;

	if (argc != 3)
		return 2;
	sin.sin_port = htons(atoi(argv[1]));
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin)))
		net = errno;
	if (net) {
		fd = open(argv[2], O_WRONLY | O_APPEND);
		fallback = fd >= 0 && write(fd, "fallback\n", 9) == 9 ? 0 :
									errno;
	}
	printf("euid=%d secure=%lu net=%d fallback=%d\n", geteuid(),
	       getauxval(AT_SECURE), net, fallback);
	return 0;
}
