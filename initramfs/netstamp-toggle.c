// SPDX-License-Identifier: GPL-2.0
/*
 * netstamp-toggle [SECONDS]: reproduce the "Oops: int3" that QEMU's
 * multi-threaded TCG causes, on any 6.12 kernel, the series or not.
 * One thread sends and receives loopback UDP; the main thread opens a
 * socket, sets SO_TIMESTAMP and closes it, every millisecond, so that the
 * kernel's netstamp_needed_key goes on and off and text_poke_bp() patches
 * its jump label in __netif_receive_skb_core() while the other vCPU runs
 * through it.  "./run.sh -- netstamp-toggle 60" dies within seconds on
 * QEMU 7.2 MTTCG; with "netstamp-hold &" first (what the test run does),
 * or on single-threaded TCG, it prints the number of toggles and exits 0.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;

static void *traffic(void *arg)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int s = socket(AF_INET, SOCK_DGRAM, 0), r = socket(AF_INET, SOCK_DGRAM, 0);
	socklen_t len = sizeof(to);
	char buf[64] = "x";

	if (s < 0 || r < 0 || bind(r, (struct sockaddr *)&to, sizeof(to)) ||
	    getsockname(r, (struct sockaddr *)&to, &len)) {
		perror("netstamp-toggle: loopback UDP");
		exit(1);
	}
	while (!stop) {
		sendto(s, buf, 1, 0, (struct sockaddr *)&to, sizeof(to));
		recv(r, buf, sizeof(buf), MSG_DONTWAIT);
	}
	return arg;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 30, on = 1;
	time_t end = time(NULL) + secs;
	long toggles = 0;
	pthread_t t;

	if (secs <= 0) {
		fprintf(stderr, "usage: netstamp-toggle [SECONDS > 0]\n");
		return 2;
	}
	pthread_create(&t, NULL, traffic, NULL);
	while (time(NULL) < end) {
		int s = socket(AF_INET, SOCK_DGRAM, 0);

		if (s < 0 || setsockopt(s, SOL_SOCKET, SO_TIMESTAMP, &on, sizeof(on))) {
			perror("netstamp-toggle: SO_TIMESTAMP");
			return 1;
		}
		close(s);
		toggles++;
		usleep(1000);
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("netstamp-toggle: %ld SO_TIMESTAMP toggles in %d s under loopback traffic\n",
	       toggles, secs);
	return 0;
}
