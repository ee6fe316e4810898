// SPDX-License-Identifier: GPL-2.0
/*
 * The interface of prctl(PR_SET_NETWORK) and prctl(PR_GET_NETWORK): who may
 * call it, with which arguments, and how the flag is inherited and shown.
 */

#define _GNU_SOURCE
#include <pthread.h>

#include "common.h"

FIXTURE(caller) {};

FIXTURE_VARIANT(caller)
{
	bool root;
};

/* Root is refused too: it is never nosuid. */
FIXTURE_VARIANT_ADD(caller, root)
{
	.root = true,
};

FIXTURE_VARIANT_ADD(caller, user)
{
	.root = false,
};

FIXTURE_SETUP(caller)
{
}

FIXTURE_TEARDOWN(caller)
{
}

/*
 * Without nosuid, a task could switch its network off and then run a
 * setuid program in that environment: refused.
 */
TEST_F(caller, set_needs_nosuid)
{
	if (!variant->root)
		drop_to_user(_metadata);
	ASSERT_EQ(0, prctl(PR_GET_NOSUID, 0, 0, 0, 0));
	if (prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0) && errno == EINVAL)
		SKIP(return, NO_NETWORK_PRCTL);
	ASSERT_EQ(EPERM, errno);
	ASSERT_EQ(0, prctl(PR_GET_NETWORK, 0, 0, 0, 0));

	/* Control: the same call once the caller is nosuid. */
	if (variant->root)
		drop_to_user(_metadata);
	set_nosuid(_metadata);
	ASSERT_EQ(0, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0));
	ASSERT_EQ(PR_NETWORK_OFF, prctl(PR_GET_NETWORK, 0, 0, 0, 0));
}

TEST(set_twice)
{
	become_user(_metadata);
	REQUIRE_NETWORK_PRCTL();
	ASSERT_EQ(0, prctl(PR_GET_NETWORK, 0, 0, 0, 0));
	ASSERT_EQ(0, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0));
	ASSERT_EQ(PR_NETWORK_OFF, prctl(PR_GET_NETWORK, 0, 0, 0, 0));
	ASSERT_EQ(0, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0));
	ASSERT_EQ(PR_NETWORK_OFF, prctl(PR_GET_NETWORK, 0, 0, 0, 0));
}

TEST(cannot_clear)
{
	become_user(_metadata);
	REQUIRE_NETWORK_PRCTL();
	/* Control: 0 clears nothing while nothing is set. */
	ASSERT_EQ(0, prctl(PR_SET_NETWORK, 0, 0, 0, 0));
	ASSERT_EQ(0, prctl(PR_GET_NETWORK, 0, 0, 0, 0));

	CLOSE_GATE();
	ASSERT_EQ(-1, prctl(PR_SET_NETWORK, 0, 0, 0, 0));
	ASSERT_EQ(EPERM, errno);
	ASSERT_EQ(PR_NETWORK_OFF, prctl(PR_GET_NETWORK, 0, 0, 0, 0));
}

TEST(unknown_bits)
{
	const unsigned long bad[] = { 2, PR_NETWORK_OFF | 2, 1UL << 63, ~0UL };
	int i;

	become_user(_metadata);
	REQUIRE_NETWORK_PRCTL();
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ASSERT_EQ(-1, prctl(PR_SET_NETWORK, bad[i], 0, 0, 0));
		ASSERT_EQ(EINVAL, errno)
		{
			TH_LOG("arg2 %#lx", bad[i]);
		}
		/* Not even the known bit was set. */
		ASSERT_EQ(0, prctl(PR_GET_NETWORK, 0, 0, 0, 0));
	}
	/* Control: the same caller, a valid value. */
	ASSERT_EQ(0, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0));
}

TEST(extra_args)
{
	become_user(_metadata);
	REQUIRE_NETWORK_PRCTL();
	ASSERT_EQ(-1, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 1, 0, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 1, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 1));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, prctl(PR_GET_NETWORK, 0, 0, 0, 0));
	/* Control: the same call with zeroes. */
	ASSERT_EQ(0, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0));
}

TEST(get_args)
{
	REQUIRE_NETWORK_PRCTL();
	ASSERT_EQ(-1, prctl(PR_GET_NETWORK, 1, 0, 0, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, prctl(PR_GET_NETWORK, 0, 1, 0, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, prctl(PR_GET_NETWORK, 0, 0, 1, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, prctl(PR_GET_NETWORK, 0, 0, 0, 1));
	ASSERT_EQ(EINVAL, errno);
	/* Control. */
	ASSERT_EQ(0, prctl(PR_GET_NETWORK, 0, 0, 0, 0));
}

/* PR_GET_NETWORK as seen by a forked child. */
static int child_state(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(prctl(PR_GET_NETWORK, 0, 0, 0, 0) & 0x7f);
	return wait_child(pid);
}

TEST(inherited_by_fork)
{
	become_user(_metadata);
	REQUIRE_NETWORK_PRCTL();
	/* Control: the child reports what it has. */
	ASSERT_EQ(0, child_state());
	CLOSE_GATE();
	ASSERT_EQ(PR_NETWORK_OFF, child_state());
}

/* What net_state, a new program image, prints. */
static int exec_state(struct __test_metadata *const _metadata)
{
	char path[PATH_MAX], out[32] = {};
	int pipefd[2];
	pid_t pid;

	helper_path(path, sizeof(path), "net_state");
	if (pipe(pipefd))
		return -1000;
	pid = fork();
	if (pid == 0) {
		char *const argv[] = { path, NULL };

		dup2(pipefd[1], STDOUT_FILENO);
		execve(path, argv, NULL);
		_exit(127);
	}
	close(pipefd[1]);
	if (read(pipefd[0], out, sizeof(out) - 1) <= 0)
		strcpy(out, "-1000");
	close(pipefd[0]);
	EXPECT_EQ(0, wait_child(pid));
	return atoi(out);
}

TEST(kept_across_exec)
{
	become_user(_metadata);
	REQUIRE_NETWORK_PRCTL();
	ASSERT_EQ(0, exec_state(_metadata));
	CLOSE_GATE();
	ASSERT_EQ(PR_NETWORK_OFF, exec_state(_metadata));
}

/* The NoNetwork: line of /proc/PID/status, as another process sees it. */
static void expect_status(struct __test_metadata *const _metadata, pid_t pid,
			  const char *expected)
{
	char path[64], line[128];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "NoNetwork:", 10)) {
			found = true;
			EXPECT_STREQ(expected, line);
		}
	fclose(f);
	EXPECT_TRUE(found);
}

/* A uid 1000 nosuid child, gated or not, that waits for a byte. */
static pid_t spawn_waiter(struct __test_metadata *const _metadata, bool gated,
			  int *release)
{
	int ready[2], hold[2];
	char c;
	pid_t pid;

	if (pipe(ready) || pipe(hold))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(hold[1]);
		close(ready[0]);
		become_user(_metadata);
		if (gated)
			ASSERT_EQ(0, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0,
					   0, 0));
		close(ready[1]);
		read(hold[0], &c, 1);
		_exit(0);
	}
	close(hold[0]);
	close(ready[1]);
	/* End of file once the child is ready. */
	read(ready[0], &c, 1);
	close(ready[0]);
	*release = hold[1];
	return pid;
}

/*
 * Seen from outside.  DESIGN.md's decisions put it in /proc/PID/status
 * rather than /proc/PID/attr/disablenetwork/ (a getprocattr hook would
 * answer the legacy /proc/PID/attr/current in place of a major LSM).
 */
TEST(proc_status)
{
	int release_gated, release_open;
	pid_t gated, open;

	REQUIRE_NETWORK_PRCTL();
	gated = spawn_waiter(_metadata, true, &release_gated);
	open = spawn_waiter(_metadata, false, &release_open);
	ASSERT_LT(0, gated);
	ASSERT_LT(0, open);
	/* Read from outside, by the (root) parent. */
	expect_status(_metadata, gated, "NoNetwork:\t1\n");
	expect_status(_metadata, open, "NoNetwork:\t0\n");
	expect_status(_metadata, getpid(), "NoNetwork:\t0\n");
	EXPECT_EQ(1, write(release_gated, "", 1));
	EXPECT_EQ(1, write(release_open, "", 1));
	EXPECT_EQ(0, wait_child(gated));
	EXPECT_EQ(0, wait_child(open));
}

static void *wait_for_close(void *arg)
{
	char c;

	read(*(int *)arg, &c, 1);
	return NULL;
}

/*
 * A sibling thread shares the caller's memory without sharing its flag, so
 * the flag is only set on a task alone in its thread group.
 */
TEST(other_thread)
{
	pthread_t thread;
	int hold[2];

	become_user(_metadata);
	REQUIRE_NETWORK_PRCTL();
	ASSERT_EQ(0, pipe(hold));
	ASSERT_EQ(0, pthread_create(&thread, NULL, wait_for_close, &hold[0]));
	ASSERT_EQ(-1, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0));
	ASSERT_EQ(EBUSY, errno);
	ASSERT_EQ(0, prctl(PR_GET_NETWORK, 0, 0, 0, 0));

	/* Control: the same call once the thread is gone. */
	close(hold[1]);
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(0, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0));
}

TEST_HARNESS_MAIN
