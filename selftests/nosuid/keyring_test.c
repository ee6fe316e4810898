// SPDX-License-Identifier: GPL-2.0
/*
 * PR_SET_NOSUID and the session keyring, at scale and under a race.
 *
 * The flag drops the session keyring the task inherited (shared with the
 * tasks it was forked from, and searched by the setuid programs they run);
 * a new one of its own is made when the task first refers to it.  So the
 * call itself allocates nothing and charges nothing to the user's key
 * quota: thousands of sandboxes of one user in a pam_keyinit-style
 * session all start, and the user can still add keys while they run.
 * KEYCTL_SESSION_TO_PARENT is applied by task_work after the check: a
 * parent that sets the flag in between must not end up with the child's
 * keyring.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../kselftest_harness.h"
#include "common.h"

#define SANDBOXES_WANTED 10000

static long keyctl(int cmd, unsigned long a2, unsigned long a3)
{
	return syscall(__NR_keyctl, cmd, a2, a3, 0, 0);
}

static long session_id(void)
{
	return keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
}

static void become_user(struct __test_metadata *const _metadata)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };

	/* The sandboxes are many processes of one uid. */
	ASSERT_EQ(0, setrlimit(RLIMIT_NPROC, &unlimited));
	ASSERT_EQ(0, setgroups(0, NULL));
	ASSERT_EQ(0, setresgid(USER_GID, USER_GID, USER_GID));
	ASSERT_EQ(0, setresuid(USER_UID, USER_UID, USER_UID));
}

/* The keys uid USER_UID holds against its quota: qnkeys of /proc/key-users. */
static long quota_keys(void)
{
	unsigned int uid, usage, nkeys, nikeys, qnkeys, maxkeys;
	char line[256];
	long found = -1;
	FILE *f = fopen("/proc/key-users", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %u: %u %u/%u %u/%u", &uid, &usage, &nkeys,
			   &nikeys, &qnkeys, &maxkeys) == 6 && uid == USER_UID)
			found = qnkeys;
	}
	fclose(f);
	return found;
}

static long read_number(const char *path, const char *key)
{
	char line[256];
	long value = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!key) {
			value = atol(line);
			break;
		}
		if (!strncmp(line, key, strlen(key))) {
			value = atol(line + strlen(key));
			break;
		}
	}
	fclose(f);
	return value;
}

/*
 * Keys of exited tasks are freed by a deferred collector: wait until the
 * uid holds at most @keys against its quota again, for the tests after.
 */
static long wait_for_quota(long keys)
{
	long held = quota_keys();
	int i;

	for (i = 0; i < 1000 && held > keys; i++) {
		usleep(10000);
		held = quota_keys();
	}
	return held;
}

/*
 * As many sandboxes as the guest holds, up to SANDBOXES_WANTED: each is a
 * process, and a 1 GiB guest has room for about 8,000 tasks in all
 * (threads-max); start_crowd() also stops while a quarter of the memory
 * available at the start is left (a debug kernel needs more per task).
 */
static int sandboxes_to_start(void)
{
	long threads_max = read_number("/proc/sys/kernel/threads-max", NULL);
	long n = SANDBOXES_WANTED;

	if (threads_max > 0 && n > threads_max * 3 / 4)
		n = threads_max * 3 / 4;
	return n;
}

/* The sandbox's first act; the control's is a charged session keyring. */
static int set_nosuid(void)
{
	return prctl(PR_SET_NOSUID, 1, 0, 0, 0) ? errno : 0;
}

static int join_session(void)
{
	return keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0) < 0 ? errno : 0;
}

struct crowd {
	int results[2];		/* each child writes its errno, as a byte */
	int release[2];		/* closed by the parent to let them exit */
	int started, ok, edquot, other;
};

/*
 * Start @n children that each run @fn and then wait to be released, so
 * that all are alive at once; count what @fn returned.
 */
static void start_crowd(struct __test_metadata *const _metadata,
			struct crowd *c, int n, int (*fn)(void))
{
	unsigned char err;
	int i;

	long avail = read_number("/proc/meminfo", "MemAvailable:");

	memset(c, 0, sizeof(*c));
	ASSERT_EQ(0, pipe(c->results));
	ASSERT_EQ(0, pipe(c->release));
	for (i = 0; i < n; i++) {
		pid_t pid;

		if (i % 64 == 0 && avail > 0 &&
		    read_number("/proc/meminfo", "MemAvailable:") < avail / 4)
			break;
		pid = fork();

		if (pid < 0)
			break;
		if (pid == 0) {
			char byte;

			close(c->results[0]);
			close(c->release[1]);
			err = fn();
			if (write(c->results[1], &err, 1) != 1)
				_exit(1);
			/* Returns at EOF: the parent closed its end. */
			if (read(c->release[0], &byte, 1) < 0)
				_exit(1);
			_exit(0);
		}
		c->started++;
	}
	close(c->results[1]);
	close(c->release[0]);
	for (i = 0; i < c->started; i++) {
		ASSERT_EQ(1, read(c->results[0], &err, 1));
		if (!err)
			c->ok++;
		else if (err == EDQUOT)
			c->edquot++;
		else
			c->other++;
	}
}

static void end_crowd(struct crowd *c)
{
	close(c->release[1]);
	close(c->results[0]);
	while (wait(NULL) > 0)
		;
}

/*
 * issue: a user in a pam_keyinit session ran 400 processes that each set
 * the flag: 199 succeeded, 201 failed with EDQUOT, and the user's own keys
 * could not be added while they ran.
 */
FIXTURE(keyring) {};
FIXTURE_SETUP(keyring) {}
FIXTURE_TEARDOWN(keyring) {}

TEST_F_TIMEOUT(keyring, sandboxes_without_quota, 240)
{
	long before, during, maxkeys;
	struct crowd c;
	int n;

	become_user(_metadata);
	/* The login's session keyring, as pam_keyinit makes it. */
	if (keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0) < 0 && errno == ENOSYS)
		SKIP(return, "kernel without CONFIG_KEYS");
	maxkeys = read_number("/proc/sys/kernel/keys/maxkeys", NULL);
	ASSERT_LT(0, maxkeys);

	n = sandboxes_to_start();
	ASSERT_LT(maxkeys * 2, n);
	before = quota_keys();
	ASSERT_LE(0, before);
	start_crowd(_metadata, &c, n, set_nosuid);
	during = quota_keys();
	/* The user's own key still fits while they all run. */
	EXPECT_LT(0, syscall(__NR_add_key, "user", "users-own", "k", 1,
			     KEY_SPEC_SESSION_KEYRING));
	end_crowd(&c);
	TH_LOG("%d sandboxes of uid %d at once (wanted %d): %d ok, %d EDQUOT, %d other; quota keys %ld before, %ld while they ran",
	       c.started, USER_UID, SANDBOXES_WANTED, c.ok, c.edquot, c.other,
	       before, during);
	/* Well beyond what the quota would have allowed. */
	EXPECT_LT(maxkeys * 4, c.started);
	EXPECT_EQ(c.started, c.ok);
	EXPECT_EQ(before, during);

	/*
	 * Control, after (keys are freed by a deferred collector): a charged
	 * keyring per child runs into the quota.
	 */
	start_crowd(_metadata, &c, maxkeys + 20, join_session);
	end_crowd(&c);
	TH_LOG("%d children joining a new session keyring each: %d ok, %d EDQUOT",
	       c.started, c.ok, c.edquot);
	ASSERT_EQ(maxkeys + 20, c.started);
	ASSERT_LT(0, c.edquot);
	EXPECT_GE(before + 1, wait_for_quota(before + 1));
}

/*
 * A nosuid task that has dropped its session keyring gets one of its own
 * when it refers to it, not the user-session keyring, which tasks that
 * kept their rights and have no session keyring use as theirs.
 */
TEST_F(keyring, own_one_on_first_use)
{
	long session, user_session;

	become_user(_metadata);
	if (keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0) < 0 && errno == ENOSYS)
		SKIP(return, "kernel without CONFIG_KEYS");
	ASSERT_EQ(0, prctl(PR_SET_NOSUID, 1, 0, 0, 0));
	session = session_id();
	user_session = keyctl(KEYCTL_GET_KEYRING_ID,
			      KEY_SPEC_USER_SESSION_KEYRING, 0);
	ASSERT_LT(0, session);
	ASSERT_LT(0, user_session);
	EXPECT_NE(user_session, session);
	/* It is kept: the next reference finds the same keyring. */
	ASSERT_LT(0, syscall(__NR_add_key, "user", "own", "k", 1,
			     KEY_SPEC_SESSION_KEYRING));
	EXPECT_EQ(session, session_id());
	EXPECT_LT(0, syscall(__NR_keyctl, KEYCTL_SEARCH,
			     KEY_SPEC_SESSION_KEYRING, "user", "own", 0));
}

/*
 * One try: P forks C; C joins a session keyring of its own and hands it to
 * P with KEYCTL_SESSION_TO_PARENT, in a loop.  P sets the flag (or not,
 * for the control) while C loops, returns to user space a few times so
 * that pending task_work runs, and reports whether its session keyring is
 * C's: 1 if it is, 0 if not, -1 on a setup failure.
 */
static int session_race_try(bool nosuid)
{
	long child_session = 0, mine;
	int ready[2], status, i;
	pid_t p, c;

	p = fork();
	if (p < 0)
		return -1;
	if (p) {
		if (waitpid(p, &status, 0) != p || !WIFEXITED(status))
			return -1;
		return WEXITSTATUS(status) == 255 ? -1 : WEXITSTATUS(status);
	}
	/* P: the test's session keyring, single-threaded, not nosuid. */
	if (pipe(ready))
		_exit(255);
	c = fork();
	if (c < 0)
		_exit(255);
	if (c == 0) {
		long id = keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0);

		/* The keyrings of earlier tries may not be collected yet. */
		for (i = 0; id < 0 && errno == EDQUOT && i < 500; i++) {
			usleep(10000);
			id = keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0);
		}
		if (id < 0 || write(ready[1], &id, sizeof(id)) != sizeof(id))
			_exit(1);
		for (;;)
			keyctl(KEYCTL_SESSION_TO_PARENT, 0, 0);
	}
	if (read(ready[0], &child_session, sizeof(child_session)) !=
	    sizeof(child_session)) {
		kill(c, SIGKILL);
		_exit(255);
	}
	/* Let C's loop start: some of its calls are now queued at P. */
	for (i = 0; i < 20; i++)
		sched_yield();
	if (nosuid && prctl(PR_SET_NOSUID, 1, 0, 0, 0))
		_exit(255);
	for (i = 0; i < 20; i++)
		sched_yield();
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	/* Back in user space after C's last call: all its work has run. */
	mine = session_id();
	_exit(mine == child_session ? 1 : 0);
}

/* R4-2: needs two CPUs, so that C's calls run while P sets the flag. */
TEST_F_TIMEOUT(keyring, session_to_parent_race, 240)
{
	int tries, taken = 0, control = 0, ret;

	become_user(_metadata);
	if (keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0) < 0 && errno == ENOSYS)
		SKIP(return, "kernel without CONFIG_KEYS");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU: the race needs two that run at once");
	for (tries = 0; tries < 64; tries++) {
		ret = session_race_try(false);
		ASSERT_LE(0, ret);
		control += ret;
		ret = session_race_try(true);
		ASSERT_LE(0, ret);
		taken += ret;
	}
	TH_LOG("%d tries: the parent took the child's keyring %d times without the flag, %d times with it",
	       tries, control, taken);
	/* Control: the child's keyring does reach a parent without the flag. */
	ASSERT_LT(0, control);
	EXPECT_EQ(0, taken);
}

TEST_HARNESS_MAIN
