/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Definitions shared by the PR_SET_NOSUID test and its helper programs.
 *
 * The helpers print what they find about themselves as "key=value" lines
 * on stdout; the test parses them.  Capabilities and the NoSUID line are
 * read from /proc/self/status, which is also what other processes see.
 */
#ifndef NOSUID_COMMON_H
#define NOSUID_COMMON_H

#include <stdio.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <unistd.h>

/* The guest's unprivileged user. */
#define USER_UID 1000
#define USER_GID 1000
/* Neither the user's nor root's: owner of some setuid/setgid fixtures. */
#define OTHER_ID 2000

static inline void print_state(void)
{
	uid_t ruid, euid, suid;
	gid_t rgid, egid, sgid;
	unsigned long long v;
	char line[256];
	FILE *f;

	getresuid(&ruid, &euid, &suid);
	getresgid(&rgid, &egid, &sgid);
	printf("ruid=%u\neuid=%u\nsuid=%u\n", ruid, euid, suid);
	printf("rgid=%u\negid=%u\nsgid=%u\n", rgid, egid, sgid);
	printf("secure=%lu\n", getauxval(AT_SECURE));
	printf("dumpable=%d\n", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
	printf("nnp=%d\n", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	printf("nosuid=%d\n", prctl(PR_GET_NOSUID, 0, 0, 0, 0));

	f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "CapPrm: %llx", &v) == 1)
			printf("capprm=%llu\n", v);
		else if (sscanf(line, "CapEff: %llx", &v) == 1)
			printf("capeff=%llu\n", v);
		else if (sscanf(line, "NoSUID: %llu", &v) == 1)
			printf("status_nosuid=%llu\n", v);
	}
	if (f)
		fclose(f);
}

#endif /* NOSUID_COMMON_H */
