// SPDX-License-Identifier: GPL-2.0
/*
 * vm-exit STATUS: end the guest with STATUS.  Writes STATUS to QEMU's
 * isa-debug-exit port (QEMU then exits with STATUS * 2 + 1), and falls back
 * to a plain reboot, which "-no-reboot" turns into an exit.
 */
#include <stdlib.h>
#include <sys/io.h>
#include <sys/reboot.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int status = argc > 1 ? atoi(argv[1]) : 0;

	if (status < 0 || status > 126)
		status = 126;
	if (ioperm(0xf4, 1, 1) == 0)
		outb(status, 0xf4);
	sync();
	reboot(RB_AUTOBOOT);
	return 1;
}
