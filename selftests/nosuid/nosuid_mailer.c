// SPDX-License-Identifier: GPL-2.0
/*
 * Helper of nosuid_test: a model of a privileged mail submission program.
 *
 * Installed setuid or setgid, it hands a message to a local daemon and,
 * when the daemon cannot be reached, falls back on appending it to the
 * spool itself, with its privilege.  That fallback is what the 2000
 * sendmail capabilities bug and the 2009 disablenetwork debate were about:
 * a user who can make the daemon unreachable (switch his network off) must
 * not be able to run such a program with its privilege, or he drives it
 * down a path nobody audited.  nosuid_test runs it with and without
 * PR_SET_NOSUID and checks the spool.
 *
 * usage: nosuid_mailer SOCKET SPOOL LINE
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "common.h"

int main(int argc, char *argv[])
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	size_t len;
	int fd, err;

	if (argc != 4)
		return 2;
	len = strlen(argv[3]);
	print_state();

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd >= 0 && !connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		/* The daemon's job: the spool is not touched. */
		printf("connect_errno=0\n");
		return write(fd, argv[3], len) == (ssize_t)len ? 0 : 1;
	}
	printf("connect_errno=%d\n", errno);

	/* Fallback: write the spool with whatever privilege we run with. */
	err = 0;
	fd = open(argv[2], O_WRONLY | O_APPEND);
	if (fd < 0)
		err = errno;
	else if (write(fd, argv[3], len) != (ssize_t)len)
		err = errno ? errno : EIO;
	printf("append_errno=%d\n", err);
	return 0;
}
