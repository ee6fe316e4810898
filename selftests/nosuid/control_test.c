// SPDX-License-Identifier: GPL-2.0
/*
 * A nosuid task does not control a task that kept its rights.  Besides
 * ptrace and TIOCSTI: prlimit() on such a task (its limits are inherited
 * by the setuid programs it runs later) and KEYCTL_SESSION_TO_PARENT
 * toward such a parent are refused.  Each test has a control: the same
 * call by the same kind of task without the flag succeeds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/keyctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "common.h"

static void become_user(struct __test_metadata *const _metadata)
{
	ASSERT_EQ(0, setgroups(0, NULL));
	ASSERT_EQ(0, setresgid(USER_GID, USER_GID, USER_GID));
	ASSERT_EQ(0, setresuid(USER_UID, USER_UID, USER_UID));
}

/*
 * Fork a child that runs @fn with the pid of its parent (uid 1000, not
 * nosuid, waiting for it) and @nosuid set or not; returns what @fn
 * returned (an errno, or 0).
 */
static int from_child(struct __test_metadata *const _metadata, bool nosuid,
		      int (*fn)(pid_t parent))
{
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (nosuid && prctl(PR_SET_NOSUID, 1, 0, 0, 0))
			_exit(255);
		_exit(fn(getppid()));
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static int lower_parent_nofile(pid_t parent)
{
	struct rlimit old, new;

	if (prlimit(parent, RLIMIT_NOFILE, NULL, &old))
		return errno;
	new = old;
	new.rlim_cur = old.rlim_cur > 64 ? 64 : old.rlim_cur;
	return prlimit(parent, RLIMIT_NOFILE, &new, NULL) ? errno : 0;
}

static int read_parent_nofile(pid_t parent)
{
	struct rlimit old;

	return prlimit(parent, RLIMIT_NOFILE, NULL, &old) ? errno : 0;
}

TEST(prlimit_of_parent)
{
	become_user(_metadata);
	/* Control: a same-uid child sets its parent's limits. */
	ASSERT_EQ(0, from_child(_metadata, false, lower_parent_nofile));
	/* nosuid: it may read them, not set them. */
	ASSERT_EQ(0, from_child(_metadata, true, read_parent_nofile));
	ASSERT_EQ(EPERM, from_child(_metadata, true, lower_parent_nofile));
	/* Its own limits stay its own. */
	ASSERT_EQ(0, prctl(PR_SET_NOSUID, 1, 0, 0, 0));
	ASSERT_EQ(0, lower_parent_nofile(getpid()));
}

static int session_to_parent(pid_t parent)
{
	if (syscall(__NR_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0)
		return errno == ENOSYS ? 254 : errno;
	return syscall(__NR_keyctl, KEYCTL_SESSION_TO_PARENT) ? errno : 0;
}

TEST(session_keyring_to_parent)
{
	int ret;

	become_user(_metadata);
	/* Control: a same-uid child gives its parent a new session keyring. */
	ret = from_child(_metadata, false, session_to_parent);
	if (ret == 254)
		SKIP(return, "kernel without CONFIG_KEYS");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(EPERM, from_child(_metadata, true, session_to_parent));
}

TEST_HARNESS_MAIN
