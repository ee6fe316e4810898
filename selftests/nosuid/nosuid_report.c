// SPDX-License-Identifier: GPL-2.0
/*
 * Helper of nosuid_test: report the ids, AT_SECURE, dumpability, flags and
 * capabilities this program was started with.  With a FILE argument, also
 * try to read it: installed with file capabilities (cap_dac_override), it
 * can read a file its user cannot.
 *
 * usage: nosuid_report [FILE]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>

#include "common.h"

int main(int argc, char *argv[])
{
	char buf[256];
	ssize_t n = -1;
	int fd, err = 0;

	print_state();
	if (argc < 2)
		return 0;

	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		err = errno;
	} else {
		n = read(fd, buf, sizeof(buf));
		if (n < 0)
			err = errno;
		close(fd);
	}
	printf("read_errno=%d\nread_bytes=%zd\n", err, n);
	return 0;
}
