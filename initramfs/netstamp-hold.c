// SPDX-License-Identifier: GPL-2.0
/*
 * netstamp-hold: keep one socket with SO_TIMESTAMP open until killed, so
 * that the kernel's netstamp_needed_key stays on for the whole test run.
 *
 * Why: every time the last timestamping socket goes away (the fuzzer's
 * random setsockopt() calls do that hundreds of times), the kernel patches
 * the jump label in __netif_receive_skb_core() with text_poke_bp().  QEMU's
 * multi-threaded TCG (7.2, Debian 12) now and then lets the other vCPU
 * execute the temporary int3 after the patching is over, and the guest
 * dies with "Oops: int3", with or without the series (netstamp-toggle.c
 * reproduces it; DESIGN.md, Harness).  With the key held on, the toggles
 * only move a counter and nothing is patched.
 */
#include <stdio.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

int main(void)
{
	int on = 1, fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_TIMESTAMP, &on, sizeof(on))) {
		perror("netstamp-hold");
		return 1;
	}
	for (;;)
		pause();
}
