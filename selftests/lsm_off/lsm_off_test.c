// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel built with disablenetwork but booted without it in lsm=: the
 * gate's prctls are unknown (EINVAL) and nothing else changes.  The nosuid
 * LSM stays in lsm= (make check boots lsm=landlock,lockdown,yama,nosuid):
 * PR_SET_NOSUID keeps working, and a nosuid task keeps all its network
 * access.  Run by make check's second boot; on a kernel where the
 * LSM is active the tests skip, saying so.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <linux/lsm.h>
#include <linux/prctl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"

#define USER_ID 1000

static long xprctl(long op, long a2)
{
	return syscall(SYS_prctl, op, a2, 0, 0, 0);
}

static bool disablenetwork_active(void)
{
	__u64 ids[32];
	__u32 size = sizeof(ids);
	long n = syscall(__NR_lsm_list_modules, ids, &size, 0);

	for (long i = 0; i < n; i++)
		if (ids[i] == LSM_ID_DISABLENETWORK)
			return true;
	return false;
}

#define REQUIRE_LSM_OFF()						\
	do {								\
		if (disablenetwork_active())				\
			SKIP(return,					\
			     "disablenetwork is active: this checks a boot without it in lsm="); \
	} while (0)

/* Run @fn as uid 1000 without capabilities, under nosuid; its status. */
static int as_nosuid_user(int (*fn)(void))
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		gid_t g = USER_ID;

		if (setgroups(1, &g) || setresgid(USER_ID, USER_ID, USER_ID) ||
		    setresuid(USER_ID, USER_ID, USER_ID))
			_exit(90);
		if (xprctl(PR_SET_NOSUID, 1) || xprctl(PR_GET_NOSUID, 0) != 1)
			_exit(91);
		_exit(fn());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST(lsm_not_listed)
{
	REQUIRE_LSM_OFF();
	/* lsm_list_modules() works and lists the others. */
	ASSERT_FALSE(disablenetwork_active());
}

static int prctls_einval(void)
{
	if (xprctl(PR_SET_NETWORK, PR_NETWORK_OFF) != -1 || errno != EINVAL)
		return 1;
	if (xprctl(PR_GET_NETWORK, 0) != -1 || errno != EINVAL)
		return 2;
	return 0;
}

TEST(prctls_are_einval)
{
	REQUIRE_LSM_OFF();
	/* For root and for a nosuid user alike. */
	ASSERT_EQ(0, prctls_einval());
	ASSERT_EQ(0, as_nosuid_user(prctls_einval));
}

static int network_works(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len = sizeof(sin);
	int l, c, u, a, n;
	char byte = 1;

	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(l, 1) || getsockname(l, (struct sockaddr *)&sin, &len))
		return 10;
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&sin, sizeof(sin)))
		return 11;
	u = socket(AF_INET, SOCK_DGRAM, 0);
	if (u < 0 || sendto(u, &byte, 1, 0, (struct sockaddr *)&sin,
			    sizeof(sin)) != 1)
		return 12;
	/* An abstract AF_UNIX name (refused behind a gate), one per process. */
	n = snprintf(sun.sun_path + 1, sizeof(sun.sun_path) - 1,
		     "lsm_off.%d", getpid()) + 1;
	a = socket(AF_UNIX, SOCK_STREAM, 0);
	if (a < 0 || bind(a, (struct sockaddr *)&sun,
			  offsetof(struct sockaddr_un, sun_path) + n))
		return 13;
	return 0;
}

TEST(nosuid_task_keeps_network)
{
	REQUIRE_LSM_OFF();
	/* The control: the same calls as root. */
	ASSERT_EQ(0, network_works());
	ASSERT_EQ(0, as_nosuid_user(network_works));
}

static int status_says_open(void)
{
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");
	int found = 0;

	if (!f)
		return 20;
	while (fgets(line, sizeof(line), f))
		if (!strcmp(line, "NoNetwork:\t0\n"))
			found = 1;
	fclose(f);
	return found ? 0 : 21;
}

TEST(proc_status_open)
{
	REQUIRE_LSM_OFF();
	ASSERT_EQ(0, as_nosuid_user(status_says_open));
}

static int unshare_net(void)
{
	return unshare(CLONE_NEWNET) ? 30 : 0;
}

TEST(nosuid_unshare_net_unchanged)
{
	REQUIRE_LSM_OFF();
	/*
	 * Unprivileged CLONE_NEWNET for nosuid tasks comes later in the
	 * series than this test; before it the sysctl does not exist.
	 */
	if (access("/proc/sys/kernel/nosuid_netns_clone", F_OK))
		SKIP(return,
		     "no kernel.nosuid_netns_clone: this kernel lets nosuid tasks no network namespace");
	/* Where it exists, it does not depend on the LSM. */
	ASSERT_EQ(0, as_nosuid_user(unshare_net));
}

TEST_HARNESS_MAIN
