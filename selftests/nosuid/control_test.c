// SPDX-License-Identifier: GPL-2.0
/*
 * A nosuid task does not control a task that kept its rights.  Besides
 * ptrace and TIOCSTI: prlimit() on such a task (its limits are inherited
 * by the setuid programs it runs later) and KEYCTL_SESSION_TO_PARENT
 * toward such a parent are refused, and the session keyring it inherited
 * is no longer shared: PR_SET_NOSUID gives it a new one.  Each test has a
 * control: the same call by the same kind of task without the flag
 * succeeds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
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

/* The parent's session keyring, known to every child forked after it. */
static long parent_session;

static long session_id(void)
{
	return syscall(__NR_keyctl, KEYCTL_GET_KEYRING_ID,
		       KEY_SPEC_SESSION_KEYRING, 0);
}

static long find_in_session(const char *desc)
{
	return syscall(__NR_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING,
		       "user", desc, 0);
}

/*
 * Returns 0 if the child shares the parent's session keyring: same id,
 * finds the parent's key there, and adds one there ("from-child").
 * Returns 10 + n for the n-th thing not shared, NOT_KEYS on other failures.
 */
#define NOT_KEYS 99

static int share_session(pid_t parent)
{
	long id = session_id();

	if (id < 0)
		return NOT_KEYS;
	if (id != parent_session)
		return 11;
	if (find_in_session("from-parent") < 0)
		return errno == ENOKEY ? 12 : NOT_KEYS;
	if (syscall(__NR_add_key, "user", "from-child", "c", 1,
		    KEY_SPEC_SESSION_KEYRING) < 0)
		return NOT_KEYS;
	return 0;
}

/*
 * The session keyring is inherited by fork: a nosuid child would still
 * possess the keyring its parent, and the setuid programs the parent
 * runs, search.  PR_SET_NOSUID gives it a new, empty one.
 */
TEST(session_keyring_of_its_own)
{
	become_user(_metadata);
	parent_session = syscall(__NR_keyctl, KEYCTL_JOIN_SESSION_KEYRING,
				 NULL);
	if (parent_session < 0 && errno == ENOSYS)
		SKIP(return, "kernel without CONFIG_KEYS");
	ASSERT_LT(0, parent_session);
	ASSERT_EQ(parent_session, session_id());
	ASSERT_LT(0, syscall(__NR_add_key, "user", "from-parent", "p", 1,
			     KEY_SPEC_SESSION_KEYRING));

	/* Control: a same-uid child shares it both ways. */
	ASSERT_EQ(0, from_child(_metadata, false, share_session));
	ASSERT_LT(0, find_in_session("from-child"));
	ASSERT_EQ(0, syscall(__NR_keyctl, KEYCTL_UNLINK,
			     find_in_session("from-child"),
			     KEY_SPEC_SESSION_KEYRING));

	/* nosuid: another keyring, without the parent's key, and its own. */
	ASSERT_EQ(11, from_child(_metadata, true, share_session));
	EXPECT_GT(0, find_in_session("from-child"));
	EXPECT_EQ(ENOKEY, errno);
}

static int add_to_own_session(pid_t parent)
{
	if (find_in_session("from-parent") >= 0)
		return 12;
	if (syscall(__NR_add_key, "user", "from-nosuid", "n", 1,
		    KEY_SPEC_SESSION_KEYRING) < 0)
		return errno;
	return find_in_session("from-nosuid") < 0 ? 13 : 0;
}

/* The new keyring works: the nosuid child adds and finds its own keys. */
TEST(session_keyring_works)
{
	become_user(_metadata);
	parent_session = syscall(__NR_keyctl, KEYCTL_JOIN_SESSION_KEYRING,
				 NULL);
	if (parent_session < 0 && errno == ENOSYS)
		SKIP(return, "kernel without CONFIG_KEYS");
	ASSERT_LT(0, parent_session);
	ASSERT_LT(0, syscall(__NR_add_key, "user", "from-parent", "p", 1,
			     KEY_SPEC_SESSION_KEYRING));
	ASSERT_EQ(0, from_child(_metadata, true, add_to_own_session));
	EXPECT_GT(0, find_in_session("from-nosuid"));
}

/*
 * Linking a keyring into one's own session keyring makes one its
 * possessor, and a named session keyring grants its owner's uid the
 * right to link it: a nosuid child could take its parent's back.
 */
static int link_parent_session(pid_t parent)
{
	/* Both kinds of child start from a session keyring of their own. */
	if (!prctl(PR_GET_NOSUID, 0, 0, 0, 0) &&
	    syscall(__NR_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0)
		return NOT_KEYS;
	if (session_id() == parent_session)
		return NOT_KEYS;
	if (syscall(__NR_keyctl, KEYCTL_LINK, parent_session,
		    KEY_SPEC_SESSION_KEYRING))
		return errno;
	/* Now a possessor: the parent's key is found through our @s. */
	return find_in_session("from-parent") < 0 ? NOT_KEYS : 0;
}

TEST(named_session_keyring_link)
{
	become_user(_metadata);
	parent_session = syscall(__NR_keyctl, KEYCTL_JOIN_SESSION_KEYRING,
				 "nosuid-test-session");
	if (parent_session < 0 && errno == ENOSYS)
		SKIP(return, "kernel without CONFIG_KEYS");
	ASSERT_LT(0, parent_session);
	ASSERT_LT(0, syscall(__NR_add_key, "user", "from-parent", "p", 1,
			     KEY_SPEC_SESSION_KEYRING));
	/* Control: a child without the flag links it and finds the key. */
	ASSERT_EQ(0, from_child(_metadata, false, link_parent_session));
	ASSERT_EQ(EACCES, from_child(_metadata, true, link_parent_session));
}

/*
 * The other way round: a child without the flag, forked before its parent
 * set it, would hand the nosuid parent back the shared session keyring.
 */
static int session_to_nosuid_parent(pid_t parent)
{
	return syscall(__NR_keyctl, KEYCTL_SESSION_TO_PARENT) ? errno : 0;
}

TEST(session_keyring_to_nosuid_parent)
{
	int go[2], status;
	pid_t pid;
	char c;

	become_user(_metadata);
	if (syscall(__NR_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 &&
	    errno == ENOSYS)
		SKIP(return, "kernel without CONFIG_KEYS");
	/* Control: toward a parent without the flag, it works. */
	ASSERT_EQ(0, from_child(_metadata, false, session_to_nosuid_parent));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(NOT_KEYS);
		_exit(session_to_nosuid_parent(getppid()));
	}
	close(go[0]);
	ASSERT_EQ(0, prctl(PR_SET_NOSUID, 1, 0, 0, 0));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(EPERM, WEXITSTATUS(status));
}

/*
 * Every writable file of /proc/PID acts on the task: a nosuid task may not
 * open one of a task that is not nosuid for writing (EACCES), and still
 * writes its own.  Each variant is a file such a task could otherwise set
 * for its parent: oom_score_adj and coredump_filter are inherited by the
 * setuid programs the parent runs later, clear_refs rewrites the parent's
 * page tables.
 */
static const char *proc_file, *proc_value;

static int write_proc_file(pid_t pid)
{
	char path[64];
	ssize_t len = strlen(proc_value);
	int fd, ret;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, proc_file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ret = write(fd, proc_value, len) == len ? 0 : errno;
	close(fd);
	return ret;
}

static int write_own_proc_file(pid_t parent)
{
	return write_proc_file(getpid());
}

FIXTURE(proc_write) {};

FIXTURE_VARIANT(proc_write)
{
	const char *file;
	const char *value;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(proc_write, oom_score_adj) {
	/* Raising it needs no privilege. */
	.file = "oom_score_adj", .value = "7",
};

FIXTURE_VARIANT_ADD(proc_write, coredump_filter) {
	.file = "coredump_filter", .value = "0x7f",
};

FIXTURE_VARIANT_ADD(proc_write, clear_refs) {
	.file = "clear_refs", .value = "1",
};

/* clang-format on */

FIXTURE_SETUP(proc_write)
{
	if (prctl(PR_GET_NOSUID, 0, 0, 0, 0) < 0)
		SKIP(return, "kernel lacks PR_SET_NOSUID");
	proc_file = variant->file;
	proc_value = variant->value;
	become_user(_metadata);
	/* The uid change made us undumpable: /proc/self would be root's. */
	ASSERT_EQ(0, prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
}

FIXTURE_TEARDOWN(proc_write)
{
}

TEST_F(proc_write, of_parent)
{
	/* Control: a same-uid child without the flag writes it. */
	ASSERT_EQ(0, from_child(_metadata, false, write_proc_file));
	ASSERT_EQ(EACCES, from_child(_metadata, true, write_proc_file));
	/* Its own stay its own. */
	ASSERT_EQ(0, from_child(_metadata, true, write_own_proc_file));
}

/*
 * /proc/PID/setgroups of a task that has just made a user namespace: the
 * owner of the namespace may write it ("deny" cannot be undone), and so
 * may any same-uid task, which is CAP_SYS_ADMIN there by the owner rule.
 * A nosuid one may not.
 */
static int victim_pid;

static int deny_setgroups(pid_t parent)
{
	char path[64];
	int fd, ret;

	snprintf(path, sizeof(path), "/proc/%d/setgroups", victim_pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ret = write(fd, "deny", 4) == 4 ? 0 : errno;
	close(fd);
	return ret;
}

/*
 * Forks a task in a new user namespace that waits on @hold until killed;
 * its pid, or 0 if user namespaces are not available.
 */
static pid_t fresh_user_namespace(int hold)
{
	int ready[2];
	pid_t pid;
	char c;

	if (pipe(ready))
		return -1;
	pid = fork();
	if (pid == 0) {
		/* It holds a copy of the write end: end it with the test. */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		c = unshare(CLONE_NEWUSER) ? 'n' : 'y';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		read(hold, &c, 1);
		_exit(0);
	}
	close(ready[1]);
	if (pid > 0 && (read(ready[0], &c, 1) != 1 || c != 'y')) {
		waitpid(pid, NULL, 0);
		pid = 0;
	}
	close(ready[0]);
	return pid;
}

TEST(setgroups_of_fresh_user_namespace)
{
	int hold[2];
	pid_t control, target;

	if (prctl(PR_GET_NOSUID, 0, 0, 0, 0) < 0)
		SKIP(return, "kernel lacks PR_SET_NOSUID");
	become_user(_metadata);
	/* Dumpable, so that /proc/PID of the tasks below is the user's. */
	ASSERT_EQ(0, prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
	ASSERT_EQ(0, pipe(hold));
	control = fresh_user_namespace(hold[0]);
	ASSERT_LE(0, control);
	if (!control)
		SKIP(return, "unprivileged user namespaces are not available");
	target = fresh_user_namespace(hold[0]);
	ASSERT_LT(0, target);

	/* Control: a same-uid task without the flag settles it. */
	victim_pid = control;
	ASSERT_EQ(0, from_child(_metadata, false, deny_setgroups));
	victim_pid = target;
	ASSERT_EQ(EACCES, from_child(_metadata, true, deny_setgroups));
	/* Each holds a copy of the write end: no EOF will come. */
	kill(control, SIGKILL);
	kill(target, SIGKILL);
	waitpid(control, NULL, 0);
	waitpid(target, NULL, 0);
}

/*
 * The same files reached through another task of the namespace: a nosuid
 * member.  Forks a task that makes a user namespace (with PR_SET_NOSUID
 * first if @creator_nosuid) and forks into it a member that drops its
 * capabilities there and sets PR_SET_NOSUID; both wait on @hold until
 * killed.  Returns the member's pid, 0 if user namespaces are not
 * available, -1 on another failure.
 */
static pid_t nosuid_member_of_user_namespace(int hold, bool creator_nosuid,
					     pid_t *creator)
{
	struct __user_cap_header_struct head = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct none[2] = {};
	int ready[2];
	pid_t member = -1;
	char c;

	if (pipe(ready))
		return -1;
	*creator = fork();
	if (*creator == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (creator_nosuid && prctl(PR_SET_NOSUID, 1, 0, 0, 0))
			_exit(1);
		if (unshare(CLONE_NEWUSER)) {
			member = 0;
			_exit(write(ready[1], &member, sizeof(member)) !=
			      sizeof(member));
		}
		member = fork();
		if (member == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
			/* Full capabilities in the new namespace: drop them. */
			if (syscall(SYS_capset, &head, none) ||
			    (!creator_nosuid && prctl(PR_SET_NOSUID, 1, 0, 0, 0)))
				_exit(1);
			member = getpid();
			if (write(ready[1], &member, sizeof(member)) !=
			    sizeof(member))
				_exit(1);
			read(hold, &c, 1);
			_exit(0);
		}
		read(hold, &c, 1);
		_exit(0);
	}
	close(ready[1]);
	if (*creator < 0 || read(ready[0], &member, sizeof(member)) !=
	    sizeof(member))
		member = -1;
	close(ready[0]);
	return member;
}

static int write_uid_map(pid_t parent)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/uid_map", victim_pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);	/* opened is enough: the write would settle it */
	return 0;
}

TEST(id_maps_through_nosuid_member)
{
	pid_t creator, member, nosuid_creator, nosuid_member;
	int hold[2];

	if (prctl(PR_GET_NOSUID, 0, 0, 0, 0) < 0)
		SKIP(return, "kernel lacks PR_SET_NOSUID");
	become_user(_metadata);
	ASSERT_EQ(0, prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
	ASSERT_EQ(0, pipe(hold));
	member = nosuid_member_of_user_namespace(hold[0], false, &creator);
	ASSERT_LE(0, member);
	if (!member)
		SKIP(return, "unprivileged user namespaces are not available");
	nosuid_member = nosuid_member_of_user_namespace(hold[0], true,
							&nosuid_creator);
	ASSERT_LT(0, nosuid_member);

	/* The creator kept its rights: its own files are refused... */
	victim_pid = creator;
	ASSERT_EQ(EACCES, from_child(_metadata, true, write_uid_map));
	/* ... and so are the same files through its nosuid member. */
	victim_pid = member;
	ASSERT_EQ(EACCES, from_child(_metadata, true, write_uid_map));
	ASSERT_EQ(EACCES, from_child(_metadata, true, deny_setgroups));
	/* Control: a task without the flag may. */
	ASSERT_EQ(0, from_child(_metadata, false, write_uid_map));
	/* Control: every task of the namespace is nosuid. */
	victim_pid = nosuid_member;
	ASSERT_EQ(0, from_child(_metadata, true, write_uid_map));
	ASSERT_EQ(0, from_child(_metadata, true, deny_setgroups));
	victim_pid = nosuid_creator;
	ASSERT_EQ(0, from_child(_metadata, true, write_uid_map));

	kill(creator, SIGKILL);
	kill(nosuid_creator, SIGKILL);
	waitpid(creator, NULL, 0);
	waitpid(nosuid_creator, NULL, 0);
}

/* A software event on @pid (-1: every task) and CPU 0: 0 or an errno. */
static int open_cpu_clock(pid_t pid)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int fd = syscall(__NR_perf_event_open, &attr, pid, pid == -1 ? 0 : -1,
			 -1, 0);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int cpu_wide_event(pid_t parent)
{
	return open_cpu_clock(-1);
}

static int own_event(pid_t parent)
{
	return open_cpu_clock(0);
}

/*
 * A CPU-wide event samples every task that runs on the CPU, with no
 * per-task ptrace check: with perf_event_paranoid at 0 any user may open
 * one, and a nosuid task would read tasks that kept their rights.
 */
TEST(cpu_wide_perf_event)
{
	char old[16] = "";
	int fd, n, status;
	pid_t pid;

	fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDWR);
	if (fd < 0 && errno == ENOENT)
		SKIP(return, "kernel without perf events (CONFIG_PERF_EVENTS)");
	ASSERT_LE(0, fd);
	n = read(fd, old, sizeof(old) - 1);
	ASSERT_LT(0, n);
	ASSERT_EQ(1, pwrite(fd, "0", 1, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		become_user(_metadata);
		/* Control: without the flag, paranoid 0 lets the user in. */
		EXPECT_EQ(0, from_child(_metadata, false, cpu_wide_event));
		/* With the flag: refused; an event on itself still works. */
		EXPECT_EQ(EACCES, from_child(_metadata, true, cpu_wide_event));
		EXPECT_EQ(0, from_child(_metadata, true, own_event));
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(n, pwrite(fd, old, n, 0));
	close(fd);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
