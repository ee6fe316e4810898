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
	/* arg3 bit 0 is PR_NETWORK_TSYNC (tsync_test.c); no other. */
	ASSERT_EQ(-1, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 2, 0, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, prctl(PR_SET_NETWORK, PR_NETWORK_OFF,
			    PR_NETWORK_TSYNC | (1UL << 63), 0, 0));
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
		snprintf(out, sizeof(out), "-1000");
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

/*
 * Waits for a byte on @fd.  Dies with the test: if a check fails before
 * the byte is sent, nothing else would end it (a CLONE_FILES child even
 * holds the write end), and it would hold the runner's output open.
 */
static int wait_in_clone(void *fd)
{
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	return read(*(int *)fd, &c, 1) == 1 ? 0 : 1;
}

/*
 * A process made with CLONE_FILES (not CLONE_VM) shares the caller's file
 * table: the sockets it makes and connects outside the gate would appear
 * in the caller's table, ready to use.  CLONE_FS is refused with it.
 */
TEST(file_table_sharer)
{
	static max_align_t stack[64 * 1024 / sizeof(max_align_t)];
	int hold[2], status;
	pid_t pid;

	become_user(_metadata);
	REQUIRE_NETWORK_PRCTL();
	ASSERT_EQ(0, pipe(hold));
	pid = clone(wait_in_clone, (char *)stack + sizeof(stack),
		    CLONE_FILES | SIGCHLD, &hold[0]);
	ASSERT_LT(0, pid);
	ASSERT_EQ(-1, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0));
	ASSERT_EQ(EBUSY, errno);
	ASSERT_EQ(0, prctl(PR_GET_NETWORK, 0, 0, 0, 0));

	/* Control: the same call once it is gone. */
	ASSERT_EQ(1, write(hold[1], "", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0));
}

/*
 * pthread_join() returns as soon as the kernel has cleared the thread's tid
 * (CLONE_CHILD_CLEARTID, early in do_exit()), before the thread has left
 * the thread list.  For user space the thread is gone then: a program that
 * joined all its threads must be able to close its gate, not get a
 * spurious EBUSY, however late the thread finishes exiting on the other
 * CPU.  The gate cannot be opened again, so each try is a fresh child.
 */
#define JOIN_TRIES 200

FIXTURE(joined) {};

FIXTURE_VARIANT(joined)
{
	int threads;
};

FIXTURE_VARIANT_ADD(joined, one_thread)
{
	.threads = 1,
};

FIXTURE_VARIANT_ADD(joined, two_threads)
{
	/* Two exits in flight at once, as at the end of a worker pool. */
	.threads = 2,
};

FIXTURE_SETUP(joined)
{
	/* The forked tries inherit uid 1000 and nosuid. */
	become_user(_metadata);
}

FIXTURE_TEARDOWN(joined)
{
}

static void *return_at_once(void *arg)
{
	return arg;
}

/* Exit code of a try: 0, the errno of PR_SET_NETWORK, or above 200. */
static __noreturn void close_gate_after_join(int threads)
{
	pthread_t thread[2];
	int i;

	for (i = 0; i < threads; i++)
		if (pthread_create(&thread[i], NULL, return_at_once, NULL))
			_exit(201);
	for (i = 0; i < threads; i++)
		if (pthread_join(thread[i], NULL))
			_exit(202);
	/* No other call in between: that is when the window is open. */
	if (prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0))
		_exit(errno);
	_exit(prctl(PR_GET_NETWORK, 0, 0, 0, 0) == PR_NETWORK_OFF ? 0 : 203);
}

TEST_F(joined, close_gate_after_join)
{
	int i, code, busy = 0, failed = 0;
	pid_t pid;

	REQUIRE_NETWORK_PRCTL();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		TH_LOG("one CPU online: the exit cannot overlap the prctl");
	for (i = 0; i < JOIN_TRIES; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			close_gate_after_join(variant->threads);
		code = wait_child(pid);
		if (code == EBUSY)
			busy++;
		else if (code)
			failed++;
		if (code && busy + failed <= 5)
			TH_LOG("try %d: exit code %d (%s)", i, code,
			       code < 128 ? strerror(code) :
			       code < 200 ? "killed" : "setup failed");
	}
	TH_LOG("%d tries, %d thread(s) joined each: %d EBUSY, %d other failures",
	       JOIN_TRIES, variant->threads, busy, failed);
	EXPECT_EQ(0, busy);
	EXPECT_EQ(0, failed);
}

static int count_threads(void)
{
	struct dirent *de;
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	if (d)
		closedir(d);
	return n;
}

/* The leader's state letter in /proc, '?' if unreadable. */
static char leader_state(void)
{
	char path[64], buf[512], *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", getpid(),
		 getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	/* "pid (comm) S ...": comm may hold anything, even ')'. */
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' ? paren[2] : '?';
}

/*
 * Runs in the second thread once the main thread called pthread_exit():
 * the process ends with this exit code.
 */
static void *close_beside_zombie_leader(void *arg)
{
	int i;

	for (i = 0; i < 5000 && leader_state() != 'Z'; i++)
		usleep(1000);
	if (leader_state() != 'Z')
		_exit(201);
	if (!prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0))
		_exit(0);
	if (errno != EBUSY)
		_exit(errno);
	/* Refused: the gate is still open. */
	_exit(prctl(PR_GET_NETWORK, 0, 0, 0, 0) == 0 ? EBUSY : 202);
}

static void *exit_thread(void *arg)
{
	pthread_exit(NULL);
}

/*
 * A thread-group leader that called pthread_exit() stays in the thread
 * list as a zombie until the last thread exits: the thread group is not
 * down to one task, and the gate stays refused (EBUSY), as for nosuid.
 */
TEST(zombie_leader_busy)
{
	pthread_t thread;
	int i, code;
	pid_t pid;

	REQUIRE_NETWORK_PRCTL();
	become_user(_metadata);

	/* Control: the other thread really gone, the same call succeeds. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		ASSERT_EQ(0, pthread_create(&thread, NULL, exit_thread, NULL));
		ASSERT_EQ(0, pthread_join(thread, NULL));
		for (i = 0; i < 5000 && count_threads() != 1; i++)
			usleep(1000);
		_exit(prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0) ? errno
								      : 0);
	}
	ASSERT_EQ(0, wait_child(pid));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		ASSERT_EQ(0, pthread_create(&thread, NULL,
					    close_beside_zombie_leader, NULL));
		pthread_exit(NULL);
	}
	code = wait_child(pid);
	ASSERT_EQ(EBUSY, code)
	{
		TH_LOG("exit code %d: %s", code,
		       code > 200 ? "leader never a zombie" : strerror(code));
	}
}

TEST_HARNESS_MAIN
