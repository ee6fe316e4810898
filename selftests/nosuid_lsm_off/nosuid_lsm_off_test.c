// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel built with the nosuid LSM but booted without it in lsm=: the
 * rules that keep a nosuid task from controlling tasks that kept their
 * rights would not hold, so PR_SET_NOSUID is EINVAL, as an unknown option
 * is, and changes nothing.  Run by make check's third boot
 * (lsm=landlock,lockdown,yama); the normal boot, where PR_SET_NOSUID
 * works, is the control (nosuid: global.set_and_get).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/lsm.h>
#include <linux/prctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../kselftest_harness.h"

#define USER_ID 1000

static bool nosuid_lsm_active(void)
{
	__u64 ids[32];
	__u32 size = sizeof(ids);
	long n = syscall(__NR_lsm_list_modules, ids, &size, 0);

	for (long i = 0; i < n; i++)
		if (ids[i] == LSM_ID_NOSUID)
			return true;
	return false;
}

TEST(set_nosuid_is_einval)
{
	char status[4096], *line;
	FILE *f;
	size_t n;

	if (nosuid_lsm_active())
		SKIP(return, "the nosuid LSM is active: this checks a boot without it in lsm=");
	/* A caller that meets every other condition. */
	ASSERT_EQ(0, setgroups(0, NULL));
	ASSERT_EQ(0, setresgid(USER_ID, USER_ID, USER_ID));
	ASSERT_EQ(0, setresuid(USER_ID, USER_ID, USER_ID));
	EXPECT_EQ(-1, syscall(SYS_prctl, PR_SET_NOSUID, 1, 0, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, syscall(SYS_prctl, PR_SET_NOSUID, 1, PR_NOSUID_TSYNC, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	/* Nothing changed. */
	EXPECT_EQ(0, syscall(SYS_prctl, PR_GET_NOSUID, 0, 0, 0, 0));
	EXPECT_EQ(0, syscall(SYS_prctl, PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	f = fopen("/proc/self/status", "r");
	ASSERT_NE(NULL, f);
	n = fread(status, 1, sizeof(status) - 1, f);
	fclose(f);
	status[n] = '\0';
	line = strstr(status, "NoSUID:");
	ASSERT_NE(NULL, line);
	EXPECT_EQ(0, strncmp(line, "NoSUID:\t0\n", 10));
}

TEST_HARNESS_MAIN
