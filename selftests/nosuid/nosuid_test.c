// SPDX-License-Identifier: GPL-2.0
/*
 * PR_SET_NOSUID: a task that holds no privilege promises never to gain any
 * at exec again (Documentation/userspace-api/nosuid.rst).
 *
 * The program runs as root: it builds the setuid, setgid and file
 * capability fixtures on /tmp, then each test drops to the unprivileged
 * user (or to the exact credentials it needs) in a child.  Every refusal
 * is paired with the same operation succeeding without the flag, so that
 * a broken fixture cannot pass for a working restriction.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/fsuid.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "common.h"
#include "../kselftest_harness.h"
#include "fixtures.h"

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif

static void read_file(struct __test_metadata *const _metadata,
		      const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	ASSERT_LE(0, fd);
	n = read(fd, buf, size - 1);
	ASSERT_LE(0, n);
	buf[n] = '\0';
	close(fd);
}

static void write_file(struct __test_metadata *const _metadata,
		       const char *path, const char *text, mode_t mode,
		       uid_t uid, gid_t gid)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	ASSERT_LE(0, fd);
	ASSERT_EQ(strlen(text), write(fd, text, strlen(text)));
	ASSERT_EQ(0, fchown(fd, uid, gid));
	/* After chown, which clears the setuid and setgid bits. */
	ASSERT_EQ(0, fchmod(fd, mode));
	close(fd);
}

enum via {
	VIA_EXEC,	/* the task that set the flag execs */
	VIA_CHILD,	/* a child it forks afterwards execs */
	VIA_THREAD,	/* a thread it creates afterwards execs */
};

struct run {
	bool nosuid;	/* set the flag after dropping to the user */
	enum via via;
};

static void *exec_thread(void *arg)
{
	char *const *argv = arg;

	execv(argv[0], argv);
	return NULL;
}

static __noreturn void exec_via(enum via via, char *const argv[])
{
	pthread_t thread;
	int status;
	pid_t pid;

	switch (via) {
	case VIA_EXEC:
		execv(argv[0], argv);
		break;
	case VIA_CHILD:
		pid = fork();
		if (pid == 0) {
			execv(argv[0], argv);
			_exit(127);
		}
		if (pid > 0 && waitpid(pid, &status, 0) == pid &&
		    WIFEXITED(status))
			_exit(WEXITSTATUS(status));
		break;
	case VIA_THREAD:
		/* On success, exec replaces the whole thread group. */
		if (!pthread_create(&thread, NULL, exec_thread, (void *)argv))
			pthread_join(thread, NULL);
		break;
	}
	_exit(127);
}

/*
 * Run @argv as the unprivileged user, as @run says, and collect its report
 * in @report.  The caller stays root, so it can check root's files after.
 */
static void run_helper(struct __test_metadata *const _metadata,
		       const struct run *run, char *const argv[],
		       char *report)
{
	ssize_t n, len = 0;
	int pipefd[2], status;
	pid_t pid;

	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		ASSERT_EQ(1, dup2(pipefd[1], 1));
		drop_to_user(_metadata);
		if (run->nosuid)
			ASSERT_EQ(0, set_nosuid());
		exec_via(run->via, argv);
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], report + len, REPORT_SIZE - 1 - len)) > 0)
		len += n;
	report[len] = '\0';
	close(pipefd[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/*
 * 1. The prctl interface.
 */

FIXTURE(bad_args) {};

FIXTURE_VARIANT(bad_args)
{
	int option;
	unsigned long arg2, arg3, arg4, arg5;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(bad_args, set_arg2_0) {
	/* Also the only conceivable way to clear the flag. */
	.option = PR_SET_NOSUID, .arg2 = 0,
};

FIXTURE_VARIANT_ADD(bad_args, set_arg2_2) {
	.option = PR_SET_NOSUID, .arg2 = 2,
};

FIXTURE_VARIANT_ADD(bad_args, set_arg2_high_bits) {
	/* Not truncated to an int on its way to the check. */
	.option = PR_SET_NOSUID, .arg2 = (1UL << 32) | 1,
};

FIXTURE_VARIANT_ADD(bad_args, set_arg3_unknown_bit) {
	/* Bit 0 is PR_NOSUID_TSYNC (section 8); the others are unknown. */
	.option = PR_SET_NOSUID, .arg2 = 1, .arg3 = 2,
};

FIXTURE_VARIANT_ADD(bad_args, set_arg3_high_bits) {
	.option = PR_SET_NOSUID, .arg2 = 1, .arg3 = (1UL << 32) | 1,
};

FIXTURE_VARIANT_ADD(bad_args, set_arg4) {
	.option = PR_SET_NOSUID, .arg2 = 1, .arg4 = 1,
};

FIXTURE_VARIANT_ADD(bad_args, set_arg5) {
	.option = PR_SET_NOSUID, .arg2 = 1, .arg5 = 1,
};

FIXTURE_VARIANT_ADD(bad_args, get_arg2) {
	.option = PR_GET_NOSUID, .arg2 = 1,
};

FIXTURE_VARIANT_ADD(bad_args, get_arg3) {
	.option = PR_GET_NOSUID, .arg3 = 1,
};

FIXTURE_VARIANT_ADD(bad_args, get_arg4) {
	.option = PR_GET_NOSUID, .arg4 = 1,
};

FIXTURE_VARIANT_ADD(bad_args, get_arg5) {
	.option = PR_GET_NOSUID, .arg5 = 1,
};

/* clang-format on */

FIXTURE_SETUP(bad_args)
{
	REQUIRE_NOSUID_AND_ROOT();
	drop_to_user(_metadata);
}

FIXTURE_TEARDOWN(bad_args)
{
}

TEST_F(bad_args, einval)
{
	ASSERT_EQ(-1, prctl(variant->option, variant->arg2, variant->arg3,
			    variant->arg4, variant->arg5));
	ASSERT_EQ(EINVAL, errno);
	/* Nothing happened, and the well-formed call works for this task. */
	ASSERT_EQ(0, get_nosuid());
	ASSERT_EQ(0, get_nnp());
	ASSERT_EQ(0, set_nosuid());
	ASSERT_EQ(1, get_nosuid());

	/* The arguments are checked first: no answer, no change once set. */
	ASSERT_EQ(-1, prctl(variant->option, variant->arg2, variant->arg3,
			    variant->arg4, variant->arg5));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(1, get_nosuid());
}

TEST(set_and_get)
{
	REQUIRE_NOSUID_AND_ROOT();
	drop_to_user(_metadata);

	ASSERT_EQ(0, get_nosuid());
	ASSERT_EQ(0, get_nnp());
	ASSERT_EQ(0, set_nosuid());
	ASSERT_EQ(1, get_nosuid());
	/* Implied: seccomp and Landlock may rely on it. */
	ASSERT_EQ(1, get_nnp());
	/* Setting it again is not an error. */
	ASSERT_EQ(0, set_nosuid());
	ASSERT_EQ(1, get_nosuid());
}

TEST(irrevocable)
{
	REQUIRE_NOSUID_AND_ROOT();
	drop_to_user(_metadata);
	ASSERT_EQ(0, set_nosuid());

	ASSERT_EQ(-1, prctl(PR_SET_NOSUID, 0, 0, 0, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, prctl(PR_SET_NO_NEW_PRIVS, 0, 0, 0, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(1, get_nosuid());
	ASSERT_EQ(1, get_nnp());
}

/*
 * 2. Inheritance.
 */

TEST(fork_inherits)
{
	pid_t before, after;
	int go[2], status;
	char c = 0;

	REQUIRE_NOSUID_AND_ROOT();
	drop_to_user(_metadata);
	ASSERT_EQ(0, pipe(go));

	/* Control: the flag is per task, a child forked before keeps 0. */
	before = fork();
	ASSERT_LE(0, before);
	if (before == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(100);
		_exit(get_nosuid());
	}

	ASSERT_EQ(0, set_nosuid());
	after = fork();
	ASSERT_LE(0, after);
	if (after == 0) {
		/* A child cannot shed what it inherited. */
		EXPECT_EQ(-1, prctl(PR_SET_NOSUID, 0, 0, 0, 0));
		EXPECT_EQ(1, get_nnp());
		_exit(get_nosuid());
	}
	ASSERT_EQ(1, write(go[1], &c, 1));

	ASSERT_EQ(before, waitpid(before, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(after, waitpid(after, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(1, WEXITSTATUS(status));
}

static void *get_nosuid_thread(void *arg)
{
	*(int *)arg = get_nosuid();
	return NULL;
}

TEST(thread_inherits)
{
	pthread_t thread;
	int value = -1;

	REQUIRE_NOSUID_AND_ROOT();
	drop_to_user(_metadata);

	/* Control: a thread of a task without the flag. */
	ASSERT_EQ(0, pthread_create(&thread, NULL, get_nosuid_thread, &value));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(0, value);

	ASSERT_EQ(0, set_nosuid());
	ASSERT_EQ(0, pthread_create(&thread, NULL, get_nosuid_thread, &value));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(1, value);
}

/* Fixture of tests that exec the reporting helper, unmodified. */
FIXTURE(exec)
{
	char dir[64], helper[96];
};

FIXTURE_SETUP(exec)
{
	REQUIRE_NOSUID_AND_ROOT();
	make_dir(_metadata, self->dir);
	snprintf(self->helper, sizeof(self->helper), "%s/report", self->dir);
	install_helper(_metadata, "nosuid_report", self->helper, 0755, 0, 0);
}

FIXTURE_TEARDOWN_PARENT(exec)
{
	remove_dir(self->dir);
}

TEST_F(exec, keeps_flag)
{
	char *const argv[] = { self->helper, NULL };
	const struct run plain = {}, nosuid = { .nosuid = true };
	char report[REPORT_SIZE];

	/* Control: the same program, started without the flag. */
	run_helper(_metadata, &plain, argv, report);
	EXPECT_EQ(0, report_get(report, "nosuid"));
	EXPECT_EQ(0, report_get(report, "status_nosuid"));
	EXPECT_EQ(0, report_get(report, "nnp"));

	run_helper(_metadata, &nosuid, argv, report);
	EXPECT_EQ(1, report_get(report, "nosuid"));
	EXPECT_EQ(1, report_get(report, "status_nosuid"));
	EXPECT_EQ(1, report_get(report, "nnp"));
	EXPECT_EQ(0, report_get(report, "secure"));
}

TEST_F(exec, keeps_flag_in_grandchild)
{
	char *const argv[] = { self->helper, NULL };
	const struct run run = { .nosuid = true, .via = VIA_CHILD };
	char report[REPORT_SIZE];

	/* Set, fork, exec: still set in the grandchild's new image. */
	run_helper(_metadata, &run, argv, report);
	EXPECT_EQ(1, report_get(report, "nosuid"));
	EXPECT_EQ(1, report_get(report, "status_nosuid"));
}

/*
 * What other processes see: the NoSUID line right after NoNewPrivs, for a
 * task that set the flag and for one that did not.
 */
TEST(proc_status)
{
	char path[64], status[4096];
	int ready[2], hold[2];
	pid_t flagged, plain;
	char c = 0;

	REQUIRE_NOSUID_AND_ROOT();
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(hold));

	flagged = fork();
	ASSERT_LE(0, flagged);
	if (flagged == 0) {
		drop_to_user(_metadata);
		ASSERT_EQ(0, set_nosuid());
		ASSERT_EQ(1, write(ready[1], &c, 1));
		ASSERT_EQ(1, read(hold[0], &c, 1));
		_exit(0);
	}
	plain = fork();
	ASSERT_LE(0, plain);
	if (plain == 0) {
		drop_to_user(_metadata);
		ASSERT_EQ(1, write(ready[1], &c, 1));
		ASSERT_EQ(1, read(hold[0], &c, 1));
		_exit(0);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(1, read(ready[0], &c, 1));

	snprintf(path, sizeof(path), "/proc/%d/status", flagged);
	read_file(_metadata, path, status, sizeof(status));
	EXPECT_NE(NULL, strstr(status, "\nNoNewPrivs:\t1\nNoSUID:\t1\n"))
	{
		TH_LOG("%s", status);
	}
	snprintf(path, sizeof(path), "/proc/%d/status", plain);
	read_file(_metadata, path, status, sizeof(status));
	EXPECT_NE(NULL, strstr(status, "\nNoNewPrivs:\t0\nNoSUID:\t0\n"))
	{
		TH_LOG("%s", status);
	}

	ASSERT_EQ(2, write(hold[1], "..", 2));
	ASSERT_EQ(flagged, waitpid(flagged, NULL, 0));
	ASSERT_EQ(plain, waitpid(plain, NULL, 0));
}

/*
 * 3. Who may set it: only a task with nothing to lose.
 *
 * Each variant starts as root and sets up exactly the credentials it
 * names; CAP_NET_RAW stands for any capability.  A refused task then gives
 * up what it held and must be allowed, which shows that the refusal was
 * due to that and nothing else.  What cannot be given up without privilege
 * (uid 0, gid 0, a supplementary group) is still refused afterwards; for
 * those, the plain_user and supplementary_other variants are the controls.
 *
 * uid 0 is privilege by itself, capabilities or not: it owns every
 * root-owned file (/etc/shadow, /etc/sudoers, the kernel's /proc/sys
 * files), so SECBIT_NOROOT, which only keeps exec from granting
 * capabilities, does not make it acceptable.  The same goes for gid 0 and
 * for group 0 in the supplementary list: root-group files are writable.
 */

FIXTURE(refusal) {};

FIXTURE_VARIANT(refusal)
{
	uid_t ruid, euid, suid, fsuid;	/* fsuid 0: the default, euid */
	gid_t rgid, egid, sgid, fsgid;	/* fsgid 0: the default, egid */
	bool cap_permitted, cap_effective, cap_inheritable, cap_ambient;
	bool drop_bounding;	/* empty the bounding set too */
	bool has_group;		/* one supplementary group: group */
	gid_t group;
	unsigned int securebits;
	int expected_errno;
	int errno_after_giving_up;
};

#define USER_IDS                                                        \
	.ruid = USER_UID, .euid = USER_UID, .suid = USER_UID,           \
	.rgid = USER_GID, .egid = USER_GID, .sgid = USER_GID

/* clang-format off */
FIXTURE_VARIANT_ADD(refusal, plain_user) {
	USER_IDS,
	.expected_errno = 0,
};

FIXTURE_VARIANT_ADD(refusal, ruid_differs) {
	USER_IDS, .ruid = OTHER_ID,
	.expected_errno = EPERM,
};

FIXTURE_VARIANT_ADD(refusal, euid_differs) {
	USER_IDS, .euid = OTHER_ID,
	.expected_errno = EPERM,
};

FIXTURE_VARIANT_ADD(refusal, suid_differs) {
	USER_IDS, .suid = OTHER_ID,
	.expected_errno = EPERM,
};

FIXTURE_VARIANT_ADD(refusal, suid_root) {
	/* A setuid-root program that "dropped" root but can come back. */
	USER_IDS, .suid = 0,
	.expected_errno = EPERM,
};

FIXTURE_VARIANT_ADD(refusal, fsuid_differs) {
	USER_IDS, .fsuid = OTHER_ID,
	.expected_errno = EPERM,
};

FIXTURE_VARIANT_ADD(refusal, rgid_differs) {
	USER_IDS, .rgid = OTHER_ID,
	.expected_errno = EPERM,
};

FIXTURE_VARIANT_ADD(refusal, egid_differs) {
	USER_IDS, .egid = OTHER_ID,
	.expected_errno = EPERM,
};

FIXTURE_VARIANT_ADD(refusal, sgid_differs) {
	USER_IDS, .sgid = OTHER_ID,
	.expected_errno = EPERM,
};

FIXTURE_VARIANT_ADD(refusal, sgid_root) {
	USER_IDS, .sgid = 0,
	.expected_errno = EPERM,
};

FIXTURE_VARIANT_ADD(refusal, fsgid_differs) {
	USER_IDS, .fsgid = OTHER_ID,
	.expected_errno = EPERM,
};

FIXTURE_VARIANT_ADD(refusal, euid_root) {
	/* Mixed ids come first, root or not: EPERM, not EACCES. */
	USER_IDS, .euid = 0,
	.expected_errno = EPERM,
};

FIXTURE_VARIANT_ADD(refusal, mixed_ids_and_caps) {
	/* Both wrong: the ids are checked first. */
	USER_IDS, .ruid = OTHER_ID, .cap_permitted = true,
	.cap_effective = true,
	.expected_errno = EPERM,
};

FIXTURE_VARIANT_ADD(refusal, gid_root) {
	/* All four gids 0: root-group files stay writable whatever it sets. */
	USER_IDS, .rgid = 0, .egid = 0, .sgid = 0,
	.expected_errno = EACCES,
	/* Without CAP_SETGID there is no other gid to go to. */
	.errno_after_giving_up = EACCES,
};

FIXTURE_VARIANT_ADD(refusal, supplementary_root) {
	/* Group 0 counts in the supplementary list just as well. */
	USER_IDS, .has_group = true, .group = 0,
	.expected_errno = EACCES,
	/* setgroups() needs CAP_SETGID: the group stays. */
	.errno_after_giving_up = EACCES,
};

FIXTURE_VARIANT_ADD(refusal, supplementary_other) {
	/* Control of the above: any other supplementary group is fine. */
	USER_IDS, .has_group = true, .group = 100,
	.expected_errno = 0,
};

FIXTURE_VARIANT_ADD(refusal, cap_permitted) {
	USER_IDS, .cap_permitted = true,
	.expected_errno = EACCES,
};

FIXTURE_VARIANT_ADD(refusal, cap_effective) {
	/* Effective is a subset of permitted: it cannot be tested alone. */
	USER_IDS, .cap_permitted = true, .cap_effective = true,
	.expected_errno = EACCES,
};

FIXTURE_VARIANT_ADD(refusal, cap_ambient) {
	/* Ambient needs permitted and inheritable: it cannot be alone. */
	USER_IDS, .cap_permitted = true, .cap_inheritable = true,
	.cap_ambient = true,
	.expected_errno = EACCES,
};

FIXTURE_VARIANT_ADD(refusal, cap_inheritable_only) {
	/* Inheritable grants nothing without file capabilities: allowed. */
	USER_IDS, .cap_inheritable = true,
	.expected_errno = 0,
};

FIXTURE_VARIANT_ADD(refusal, root_no_caps) {
	/* Its next exec would give root a full set again. */
	.expected_errno = EACCES,
	/* Dropping capabilities is not enough for root. */
	.errno_after_giving_up = EACCES,
};

FIXTURE_VARIANT_ADD(refusal, root_noroot_locked_no_caps) {
	/*
	 * Exec grants it nothing, but uid 0 owns root's files: still
	 * privilege.
	 */
	.securebits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED,
	.expected_errno = EACCES,
	.errno_after_giving_up = EACCES,
};

FIXTURE_VARIANT_ADD(refusal, root_noroot_no_caps) {
	/* Without CAP_SETPCAP the bit cannot be cleared: lock not needed. */
	.securebits = SECBIT_NOROOT,
	.expected_errno = EACCES,
	.errno_after_giving_up = EACCES,
};

FIXTURE_VARIANT_ADD(refusal, root_noroot_no_caps_no_bounding) {
	/* Not a single capability anywhere, not even to be had back. */
	.securebits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED,
	.drop_bounding = true,
	.expected_errno = EACCES,
	.errno_after_giving_up = EACCES,
};

FIXTURE_VARIANT_ADD(refusal, root_uid_user_gid_noroot_no_caps) {
	/* uid 0 alone, with gid 1000: the uid is reason enough. */
	.rgid = USER_GID, .egid = USER_GID, .sgid = USER_GID,
	.securebits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED,
	.expected_errno = EACCES,
	.errno_after_giving_up = EACCES,
};

FIXTURE_VARIANT_ADD(refusal, root_noroot_with_caps) {
	.securebits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED,
	.cap_permitted = true, .cap_effective = true,
	.expected_errno = EACCES,
	/* Dropping the capabilities leaves uid 0. */
	.errno_after_giving_up = EACCES,
};

/* clang-format on */

FIXTURE_SETUP(refusal)
{
	REQUIRE_NOSUID_AND_ROOT();
}

FIXTURE_TEARDOWN(refusal)
{
}

/* Leave exactly CAP_NET_RAW in the sets named, nothing anywhere else. */
static void set_caps(struct __test_metadata *const _metadata, bool permitted,
		     bool effective, bool inheritable)
{
	const cap_value_t net_raw = CAP_NET_RAW;
	cap_t caps = cap_init();

	ASSERT_NE(NULL, caps);
	if (permitted)
		ASSERT_EQ(0, cap_set_flag(caps, CAP_PERMITTED, 1, &net_raw,
					  CAP_SET));
	if (effective)
		ASSERT_EQ(0, cap_set_flag(caps, CAP_EFFECTIVE, 1, &net_raw,
					  CAP_SET));
	if (inheritable)
		ASSERT_EQ(0, cap_set_flag(caps, CAP_INHERITABLE, 1, &net_raw,
					  CAP_SET));
	ASSERT_EQ(0, cap_set_proc(caps));
	cap_free(caps);
}

/* Empty the bounding set: needs CAP_SETPCAP, so before anything else. */
static void drop_bounding_set(struct __test_metadata *const _metadata)
{
	int cap;

	for (cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
		ASSERT_EQ(0, prctl(PR_CAPBSET_DROP, cap, 0, 0, 0));
	/* Past the last capability the kernel knows. */
	ASSERT_EQ(EINVAL, errno);
}

/* A "Cap...:" line of /proc/self/status, or ~0 if missing. */
static unsigned long long status_caps(const char *name)
{
	unsigned long long v = ~0ULL;
	const size_t len = strlen(name);
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':')
			sscanf(line + len + 1, "%llx", &v);
	if (f)
		fclose(f);
	return v;
}

/* setfsuid() needs CAP_SETUID in effective, which setresuid() cleared. */
static void raise_effective(struct __test_metadata *const _metadata,
			    cap_value_t cap)
{
	cap_t caps = cap_get_proc();

	ASSERT_NE(NULL, caps);
	ASSERT_EQ(0, cap_set_flag(caps, CAP_EFFECTIVE, 1, &cap, CAP_SET));
	ASSERT_EQ(0, cap_set_proc(caps));
	cap_free(caps);
}

TEST_F(refusal, set)
{
	uid_t uid;
	gid_t gid;

	if (variant->securebits)
		ASSERT_EQ(0, cap_set_secbits(variant->securebits));
	if (variant->drop_bounding)
		drop_bounding_set(_metadata);
	/* Keep permitted across setresuid(), then set exactly what we want. */
	ASSERT_EQ(0, prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0));
	ASSERT_EQ(0, setgroups(variant->has_group ? 1 : 0, &variant->group));
	ASSERT_EQ(0, setresgid(variant->rgid, variant->egid, variant->sgid));
	if (variant->fsgid)
		setfsgid(variant->fsgid);
	ASSERT_EQ(0, setresuid(variant->ruid, variant->euid, variant->suid));
	if (variant->fsuid) {
		raise_effective(_metadata, CAP_SETUID);
		setfsuid(variant->fsuid);
	}
	ASSERT_EQ(variant->fsuid ? variant->fsuid : variant->euid,
		  setfsuid(-1));
	ASSERT_EQ(variant->fsgid ? variant->fsgid : variant->egid,
		  setfsgid(-1));
	set_caps(_metadata, variant->cap_permitted, variant->cap_effective,
		 variant->cap_inheritable);
	if (variant->cap_ambient)
		ASSERT_EQ(0, cap_set_ambient(CAP_NET_RAW, CAP_SET));
	/* "No capabilities" means none, as other processes see it. */
	if (!variant->cap_permitted && !variant->cap_inheritable) {
		ASSERT_EQ(0, status_caps("CapPrm"));
		ASSERT_EQ(0, status_caps("CapEff"));
		ASSERT_EQ(0, status_caps("CapInh"));
		ASSERT_EQ(0, status_caps("CapAmb"));
	}
	if (variant->drop_bounding)
		ASSERT_EQ(0, status_caps("CapBnd"));

	if (!variant->expected_errno) {
		ASSERT_EQ(0, set_nosuid());
		ASSERT_EQ(1, get_nosuid());
		ASSERT_EQ(1, get_nnp());
		return;
	}
	ASSERT_EQ(-1, set_nosuid());
	ASSERT_EQ(variant->expected_errno, errno);
	/* A refused call leaves nothing behind, not even no_new_privs. */
	ASSERT_EQ(0, get_nosuid());
	ASSERT_EQ(0, get_nnp());

	/* Give it all up; unprivileged, only ids we already hold are left. */
	uid = variant->ruid ? USER_UID : 0;
	gid = variant->rgid ? USER_GID : 0;
	ASSERT_EQ(0, cap_reset_ambient());
	set_caps(_metadata, false, false, false);
	ASSERT_EQ(0, setresgid(gid, gid, gid));
	ASSERT_EQ(0, setresuid(uid, uid, uid));
	if (variant->errno_after_giving_up) {
		ASSERT_EQ(-1, set_nosuid());
		ASSERT_EQ(variant->errno_after_giving_up, errno);
		ASSERT_EQ(0, get_nosuid());
	} else {
		ASSERT_EQ(0, set_nosuid());
		ASSERT_EQ(1, get_nosuid());
	}
}

/*
 * Root of a user namespace between the caller's and the initial one: a
 * container's root, running a program as another user of a namespace
 * nested in the container.  It owns what the container's programs trust,
 * so it counts as privilege.  The control is the same nesting with the
 * outer namespace mapping the user to a uid that is not 0 there.
 */
FIXTURE(container_root) {};

FIXTURE_VARIANT(container_root)
{
	unsigned int outer_id;	/* what uid/gid 1000 is in the outer namespace */
	int expected;
};

FIXTURE_VARIANT_ADD(container_root, root_of_outer_namespace) {
	.outer_id = 0,
	.expected = EACCES,
};

FIXTURE_VARIANT_ADD(container_root, user_of_outer_namespace) {
	.outer_id = 1,
	.expected = 0,
};

FIXTURE_SETUP(container_root)
{
}

FIXTURE_TEARDOWN(container_root)
{
}

static void write_map(struct __test_metadata *const _metadata,
		      const char *file, const char *map)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(strlen(map), write(fd, map, strlen(map)));
	close(fd);
}

/* Enter a new user namespace in which @inner is @outer of the current one. */
static void enter_user_namespace(struct __test_metadata *const _metadata,
				 unsigned int inner, unsigned int outer)
{
	char map[64];

	ASSERT_EQ(0, unshare(CLONE_NEWUSER));
	snprintf(map, sizeof(map), "%u %u 1", inner, outer);
	write_map(_metadata, "setgroups", "deny");
	write_map(_metadata, "uid_map", map);
	write_map(_metadata, "gid_map", map);
	ASSERT_EQ(0, setresgid(inner, inner, inner));
	ASSERT_EQ(0, setresuid(inner, inner, inner));
}

TEST_F(container_root, set)
{
	int ret;

	ASSERT_EQ(0, setgroups(0, NULL));
	ASSERT_EQ(0, setresgid(USER_GID, USER_GID, USER_GID));
	ASSERT_EQ(0, setresuid(USER_UID, USER_UID, USER_UID));
	/* Leaving root made us undumpable: /proc/self would stay root's. */
	ASSERT_EQ(0, prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
	/* The container: uid 1000 of the machine is outer_id in it. */
	enter_user_namespace(_metadata, variant->outer_id, USER_UID);
	/* A user of a namespace nested in it, with no capability. */
	enter_user_namespace(_metadata, USER_UID, variant->outer_id);
	set_caps(_metadata, 0, 0, 0);
	ASSERT_EQ(0, prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	ret = prctl(PR_SET_NOSUID, 1, 0, 0, 0) ? errno : 0;
	EXPECT_EQ(variant->expected, ret);
	EXPECT_EQ(!variant->expected, prctl(PR_GET_NOSUID, 0, 0, 0, 0));
}

/*
 * Threads share memory: a thread without the flag could be made to exec a
 * setuid program for one that has it.
 */

static void *wait_on_pipe(void *arg)
{
	char c;

	return read(*(int *)arg, &c, 1) == 1 ? NULL : (void *)1;
}

TEST(other_thread_busy)
{
	pthread_t thread;
	int hold[2];

	REQUIRE_NOSUID_AND_ROOT();
	drop_to_user(_metadata);
	ASSERT_EQ(0, pipe(hold));
	ASSERT_EQ(0, pthread_create(&thread, NULL, wait_on_pipe, &hold[0]));

	ASSERT_EQ(-1, set_nosuid());
	ASSERT_EQ(EBUSY, errno);
	ASSERT_EQ(0, get_nosuid());
	ASSERT_EQ(0, get_nnp());

	/* Control: alone again, the same task may. */
	ASSERT_EQ(1, write(hold[1], "", 1));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(0, set_nosuid());
	ASSERT_EQ(1, get_nosuid());
}

/*
 * pthread_join() returns as soon as the kernel has cleared the thread's tid
 * (CLONE_CHILD_CLEARTID, early in do_exit()), before the thread has left
 * the thread list.  For user space the thread is gone then, and a program
 * that joined all its threads must get the flag, not a spurious EBUSY,
 * however late the thread finishes exiting on the other CPU.
 *
 * The flag cannot be cleared, so each try is a fresh forked child.
 */
#define JOIN_TRIES 200

FIXTURE(joined) {};

FIXTURE_VARIANT(joined)
{
	int threads;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(joined, one_thread) {
	.threads = 1,
};

FIXTURE_VARIANT_ADD(joined, two_threads) {
	/* Two exits in flight at once, as at the end of a worker pool. */
	.threads = 2,
};

/* clang-format on */

FIXTURE_SETUP(joined)
{
	REQUIRE_NOSUID_AND_ROOT();
	drop_to_user(_metadata);
}

FIXTURE_TEARDOWN(joined)
{
}

static void *return_at_once(void *arg)
{
	return arg;
}

/* Exit code of a try: 0, the errno of PR_SET_NOSUID, or above 200. */
static __noreturn void set_after_join(int threads)
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
	if (set_nosuid())
		_exit(errno);
	_exit(get_nosuid() == 1 ? 0 : 203);
}

TEST_F(joined, set_after_join)
{
	int i, status, code, busy = 0, failed = 0;
	pid_t pid;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		TH_LOG("one CPU online: the exit cannot overlap the prctl");
	for (i = 0; i < JOIN_TRIES; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			set_after_join(variant->threads);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		code = WEXITSTATUS(status);
		if (code == EBUSY)
			busy++;
		else if (code)
			failed++;
		if (code && busy + failed <= 5)
			TH_LOG("try %d: exit code %d (%s)", i, code,
			       code < 200 ? strerror(code) : "setup failed");
	}
	TH_LOG("%d tries, %d thread(s) joined each: %d EBUSY, %d other failures",
	       JOIN_TRIES, variant->threads, busy, failed);
	EXPECT_EQ(0, busy);
	EXPECT_EQ(0, failed);
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
static void *set_beside_zombie_leader(void *arg)
{
	int i;

	for (i = 0; i < 5000 && leader_state() != 'Z'; i++)
		usleep(1000);
	if (leader_state() != 'Z')
		_exit(201);
	if (!set_nosuid())
		_exit(0);
	if (errno != EBUSY)
		_exit(errno);
	/* Refused: nothing was set. */
	_exit(get_nosuid() == 0 && get_nnp() == 0 ? EBUSY : 202);
}

static void *exit_thread(void *arg)
{
	pthread_exit(NULL);
}

/*
 * A thread-group leader that called pthread_exit() stays in the thread
 * list as a zombie until the last thread exits: the thread group is not
 * down to one task, and the flag stays refused (EBUSY).
 */
TEST(zombie_leader_busy)
{
	pthread_t thread;
	int i, status;
	pid_t pid;

	REQUIRE_NOSUID_AND_ROOT();

	/* Control: the other thread really gone, the same call succeeds. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		drop_to_user(_metadata);
		ASSERT_EQ(0, pthread_create(&thread, NULL, exit_thread, NULL));
		ASSERT_EQ(0, pthread_join(thread, NULL));
		for (i = 0; i < 5000 && count_threads() != 1; i++)
			usleep(1000);
		_exit(set_nosuid() ? errno : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		drop_to_user(_metadata);
		ASSERT_EQ(0, pthread_create(&thread, NULL,
					    set_beside_zombie_leader, NULL));
		pthread_exit(NULL);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(EBUSY, WEXITSTATUS(status))
	{
		TH_LOG("exit code %d: %s", WEXITSTATUS(status),
		       WEXITSTATUS(status) > 200 ? "leader never a zombie"
						 : strerror(WEXITSTATUS(status)));
	}
}

/*
 * A process made with CLONE_VM but not CLONE_THREAD shares our memory just
 * like a thread does: it could be made to exec a setuid program for us.
 * One made with CLONE_FILES or CLONE_FS shares our file table or cwd, root
 * and umask: either of us could steer the other's files (dup2() over its
 * descriptors, a umask its setuid programs inherit).
 */
FIXTURE(sharer) {};

FIXTURE_VARIANT(sharer)
{
	int flags;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(sharer, vm) {
	.flags = CLONE_VM,
};

FIXTURE_VARIANT_ADD(sharer, files) {
	.flags = CLONE_FILES,
};

FIXTURE_VARIANT_ADD(sharer, fs) {
	.flags = CLONE_FS,
};

FIXTURE_VARIANT_ADD(sharer, files_and_fs) {
	.flags = CLONE_FILES | CLONE_FS,
};

/* clang-format on */

FIXTURE_SETUP(sharer)
{
	REQUIRE_NOSUID_AND_ROOT();
	drop_to_user(_metadata);
}

FIXTURE_TEARDOWN(sharer)
{
}

TEST_F(sharer, busy)
{
	/* max_align_t: the child starts on an aligned stack pointer. */
	static max_align_t stack[64 * 1024 / sizeof(max_align_t)];
	int hold[2], status;
	pid_t pid;

	ASSERT_EQ(0, pipe(hold));
	pid = clone(wait_in_clone, (char *)stack + sizeof(stack),
		    variant->flags | SIGCHLD, &hold[0]);
	ASSERT_LT(0, pid);

	ASSERT_EQ(-1, set_nosuid());
	ASSERT_EQ(EBUSY, errno);
	ASSERT_EQ(0, get_nosuid());

	/* Control: once it is gone, the same task may. */
	ASSERT_EQ(1, write(hold[1], "", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, set_nosuid());
	ASSERT_EQ(1, get_nosuid());
}

/*
 * A ptrace attachment made before the flag would outlive it: the flag is
 * refused while the caller traces anyone, and allowed once it detached.
 */
TEST(tracing_busy)
{
	int hold[2], status;
	pid_t pid;

	REQUIRE_NOSUID_AND_ROOT();
	drop_to_user(_metadata);
	ASSERT_EQ(0, pipe(hold));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char c;

		close(hold[1]);
		_exit(read(hold[0], &c, 1) == 1 ? 0 : 1);
	}
	close(hold[0]);
	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, pid, 0, 0));

	ASSERT_EQ(-1, set_nosuid());
	ASSERT_EQ(EBUSY, errno);
	ASSERT_EQ(0, get_nosuid());

	/* Control: detached, the flag is set, and attaching is refused. */
	ASSERT_EQ(0, ptrace(PTRACE_INTERRUPT, pid, 0, 0));
	ASSERT_EQ(pid, waitpid(pid, &status, __WALL));
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, pid, 0, 0));
	ASSERT_EQ(0, set_nosuid());
	ASSERT_EQ(-1, ptrace(PTRACE_SEIZE, pid, 0, 0));
	ASSERT_EQ(EPERM, errno);
	ASSERT_EQ(1, write(hold[1], "", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
}

/* io_uring threads never exec, so they do not count as other threads. */
TEST(io_uring_thread_not_busy)
{
	struct io_uring_params params = {
		.flags = IORING_SETUP_SQPOLL,
		.sq_thread_idle = 1000,
	};
	int ring;

	REQUIRE_NOSUID_AND_ROOT();
	drop_to_user(_metadata);
	ring = syscall(__NR_io_uring_setup, 4, &params);
	if (ring < 0 && errno == ENOSYS)
		SKIP(return, "kernel lacks io_uring");
	ASSERT_LE(0, ring);
	/* The SQPOLL thread is in our thread group: there is another. */
	ASSERT_EQ(2, count_threads());

	ASSERT_EQ(0, set_nosuid());
	ASSERT_EQ(1, get_nosuid());
	close(ring);
}

/*
 * 4. The setuid confusion: a setuid or setgid mailer whose daemon is not
 * there falls back on writing a spool only its owner may write.
 */

FIXTURE(setid_exec)
{
	char dir[64], helper[96], spool[96], sock[96];
};

FIXTURE_VARIANT(setid_exec)
{
	mode_t mode;		/* of the helper */
	uid_t owner;		/* of the helper and of the spool */
	gid_t group;
	mode_t spool_mode;
	uid_t euid;		/* what the exec grants without the flag */
	gid_t egid;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(setid_exec, setuid_root) {
	.mode = 04755, .owner = 0, .group = 0, .spool_mode = 0600,
	.euid = 0, .egid = USER_GID,
};

FIXTURE_VARIANT_ADD(setid_exec, setuid_other_user) {
	.mode = 04755, .owner = OTHER_ID, .group = OTHER_ID,
	.spool_mode = 0600,
	.euid = OTHER_ID, .egid = USER_GID,
};

FIXTURE_VARIANT_ADD(setid_exec, setgid) {
	.mode = 02755, .owner = 0, .group = OTHER_ID, .spool_mode = 0060,
	.euid = USER_UID, .egid = OTHER_ID,
};

/* clang-format on */

FIXTURE_SETUP(setid_exec)
{
	REQUIRE_NOSUID_AND_ROOT();
	make_dir(_metadata, self->dir);
	snprintf(self->helper, sizeof(self->helper), "%s/mailer", self->dir);
	snprintf(self->spool, sizeof(self->spool), "%s/spool", self->dir);
	/* Nothing listens there: the daemon is down. */
	snprintf(self->sock, sizeof(self->sock), "%s/daemon.sock", self->dir);
	install_helper(_metadata, "nosuid_mailer", self->helper,
		       variant->mode, variant->owner, variant->group);
	write_file(_metadata, self->spool, "queued\n", variant->spool_mode,
		   variant->owner, variant->group);
}

FIXTURE_TEARDOWN_PARENT(setid_exec)
{
	remove_dir(self->dir);
}

#define MAIL "mail from the user\n"

static void run_mailer(struct __test_metadata *const _metadata,
		       FIXTURE_DATA(setid_exec) *self, const struct run *run,
		       char *report, char *spool_before, char *spool_after)
{
	char *const argv[] = { self->helper, self->sock, self->spool, MAIL,
			       NULL };

	read_file(_metadata, self->spool, spool_before, 256);
	run_helper(_metadata, run, argv, report);
	read_file(_metadata, self->spool, spool_after, 256);
	EXPECT_EQ(ENOENT, report_get(report, "connect_errno"));
}

TEST_F(setid_exec, control_without_flag)
{
	char report[REPORT_SIZE], before[256], after[256];
	const struct run run = {};

	/* The fixture really grants privilege, and the fallback uses it. */
	run_mailer(_metadata, self, &run, report, before, after);
	EXPECT_EQ(USER_UID, report_get(report, "ruid"));
	EXPECT_EQ(USER_GID, report_get(report, "rgid"));
	EXPECT_EQ(variant->euid, report_get(report, "euid"));
	EXPECT_EQ(variant->egid, report_get(report, "egid"));
	EXPECT_EQ(1, report_get(report, "secure"));
	EXPECT_EQ(0, report_get(report, "dumpable"));
	EXPECT_EQ(0, report_get(report, "append_errno"));
	strcat(before, MAIL);
	EXPECT_STREQ(before, after);
}

static void check_nosuid_exec(struct __test_metadata *const _metadata,
			      FIXTURE_DATA(setid_exec) *self, enum via via)
{
	char report[REPORT_SIZE], before[256], after[256];
	const struct run run = { .nosuid = true, .via = via };

	run_mailer(_metadata, self, &run, report, before, after);
	EXPECT_EQ(1, report_get(report, "nosuid"));
	EXPECT_EQ(USER_UID, report_get(report, "euid"));
	EXPECT_EQ(USER_UID, report_get(report, "suid"));
	EXPECT_EQ(USER_GID, report_get(report, "egid"));
	EXPECT_EQ(USER_GID, report_get(report, "sgid"));
	EXPECT_EQ(0, report_get(report, "secure"));
	EXPECT_EQ(1, report_get(report, "dumpable"));
	/* The fallback ran with the user's rights only. */
	EXPECT_EQ(EACCES, report_get(report, "append_errno"));
	EXPECT_STREQ(before, after);
}

TEST_F(setid_exec, nosuid)
{
	check_nosuid_exec(_metadata, self, VIA_EXEC);
}

TEST_F(setid_exec, nosuid_child)
{
	check_nosuid_exec(_metadata, self, VIA_CHILD);
}

TEST_F(setid_exec, nosuid_thread)
{
	check_nosuid_exec(_metadata, self, VIA_THREAD);
}

/*
 * 5. File capabilities are ignored: a copy of the reporting helper with
 * cap_dac_override can read a root-only file, unless run with the flag.
 */

FIXTURE(filecaps)
{
	char dir[64], helper[96], secret[96];
};

FIXTURE_SETUP(filecaps)
{
	cap_t caps;

	REQUIRE_NOSUID_AND_ROOT();
	make_dir(_metadata, self->dir);
	snprintf(self->helper, sizeof(self->helper), "%s/capped", self->dir);
	snprintf(self->secret, sizeof(self->secret), "%s/secret", self->dir);
	install_helper(_metadata, "nosuid_report", self->helper, 0755, 0, 0);
	caps = cap_from_text("cap_net_raw,cap_dac_override+ep");
	ASSERT_NE(NULL, caps);
	ASSERT_EQ(0, cap_set_file(self->helper, caps));
	cap_free(caps);
	write_file(_metadata, self->secret, "secret\n", 0600, 0, 0);
}

FIXTURE_TEARDOWN_PARENT(filecaps)
{
	remove_dir(self->dir);
}

#define FILE_CAPS ((1ULL << CAP_NET_RAW) | (1ULL << CAP_DAC_OVERRIDE))

TEST_F(filecaps, control_without_flag)
{
	char *const argv[] = { self->helper, self->secret, NULL };
	char report[REPORT_SIZE];
	const struct run run = {};

	run_helper(_metadata, &run, argv, report);
	EXPECT_EQ(USER_UID, report_get(report, "euid"));
	EXPECT_EQ(FILE_CAPS, report_get(report, "capprm"));
	EXPECT_EQ(FILE_CAPS, report_get(report, "capeff"));
	EXPECT_EQ(1, report_get(report, "secure"));
	EXPECT_EQ(0, report_get(report, "read_errno"));
	EXPECT_EQ(strlen("secret\n"), report_get(report, "read_bytes"));
}

TEST_F(filecaps, nosuid)
{
	char *const argv[] = { self->helper, self->secret, NULL };
	char report[REPORT_SIZE];
	const struct run run = { .nosuid = true };

	run_helper(_metadata, &run, argv, report);
	EXPECT_EQ(1, report_get(report, "nosuid"));
	EXPECT_EQ(0, report_get(report, "capprm"));
	EXPECT_EQ(0, report_get(report, "capeff"));
	EXPECT_EQ(0, report_get(report, "secure"));
	EXPECT_EQ(EACCES, report_get(report, "read_errno"));
}

/*
 * 6. ptrace access of any mode: a nosuid task may not take control of, or
 * reach into, one that is not, even a same-uid one, even its own child
 * forked before the flag.  PTRACE_MODE_READ is refused too, as Landlock
 * does: /proc/PID/fd/N reopens the tracee's files with any access (the
 * pipe it reads commands from, a memfd it has mapped), and cwd and environ
 * hand out more than a view.  Other directions are unchanged.
 */

/* Same address in every forked copy; the tracee exits with its value. */
static int target_word;
#define POKED 42
/* The tracee's shared memfd, at a number every process knows. */
#define TRACEE_MEMFD 99
/* A command the tracee reads from its pipe: it then exits with POKED. */
#define COMMAND 'X'

enum topology {
	SIBLING,	/* tracer and tracee are children of the test */
	CHILD_BEFORE,	/* the tracee is forked before the tracer sets it */
	CHILD_AFTER,	/* the tracee is forked after: it inherits the flag */
};

FIXTURE(ptrace) {};

FIXTURE_VARIANT(ptrace)
{
	enum topology topology;
	bool tracer_nosuid;
	bool tracee_nosuid;	/* set by the tracee itself */
	bool denied;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(ptrace, sibling_plain_to_plain) {
	/* Baseline: proves the fixture (dumpable, Yama) allows access. */
	.topology = SIBLING,
};

FIXTURE_VARIANT_ADD(ptrace, sibling_nosuid_to_plain) {
	.topology = SIBLING, .tracer_nosuid = true,
	.denied = true,
};

FIXTURE_VARIANT_ADD(ptrace, sibling_nosuid_to_nosuid) {
	.topology = SIBLING, .tracer_nosuid = true, .tracee_nosuid = true,
};

FIXTURE_VARIANT_ADD(ptrace, sibling_plain_to_nosuid) {
	.topology = SIBLING, .tracee_nosuid = true,
};

FIXTURE_VARIANT_ADD(ptrace, child_plain) {
	.topology = CHILD_BEFORE,
};

FIXTURE_VARIANT_ADD(ptrace, child_forked_before_flag) {
	.topology = CHILD_BEFORE, .tracer_nosuid = true,
	.denied = true,
};

FIXTURE_VARIANT_ADD(ptrace, child_forked_after_flag) {
	.topology = CHILD_AFTER, .tracer_nosuid = true,
};

/* clang-format on */

FIXTURE_SETUP(ptrace)
{
	REQUIRE_NOSUID_AND_ROOT();
	drop_to_user(_metadata);
}

FIXTURE_TEARDOWN(ptrace)
{
}

enum access {
	ACCESS_ATTACH,
	ACCESS_SEIZE,
	ACCESS_MEM_READ,
	ACCESS_MEM_WRITE,
	ACCESS_VM_WRITEV,
	ACCESS_VM_READV,
	ACCESS_GETFD,
	ACCESS_FD_PIPE,		/* reopen the pipe the tracee reads */
	ACCESS_FD_MEMFD,	/* reopen the memfd the tracee has mapped */
	ACCESS_CWD,
	ACCESS_ENVIRON,
};

/* 0 if the access worked, else -errno. */
static int try_access(enum access access, pid_t pid, int fd)
{
	int value = POKED, status, ret, pidfd;
	struct iovec local = { &value, sizeof(value) };
	struct iovec remote = { &target_word, sizeof(target_word) };
	char path[64];

	switch (access) {
	case ACCESS_ATTACH:
		if (ptrace(PTRACE_ATTACH, pid, NULL, NULL))
			return -errno;
		if (waitpid(pid, &status, __WALL) != pid)
			return -ECHILD;
		return ptrace(PTRACE_DETACH, pid, NULL, NULL) ? -errno : 0;
	case ACCESS_SEIZE:
		/* Detached when the tracer exits. */
		return ptrace(PTRACE_SEIZE, pid, NULL, NULL) ? -errno : 0;
	case ACCESS_MEM_READ:
	case ACCESS_MEM_WRITE:
		/* Both open modes need PTRACE_MODE_ATTACH. */
		snprintf(path, sizeof(path), "/proc/%d/mem", pid);
		fd = open(path, (access == ACCESS_MEM_READ ? O_RDONLY : O_RDWR) |
				O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (access == ACCESS_MEM_READ)
			ret = pread(fd, &value, sizeof(value),
				    (off_t)(uintptr_t)&target_word);
		else
			ret = pwrite(fd, &value, sizeof(value),
				     (off_t)(uintptr_t)&target_word);
		ret = ret == sizeof(value) ? 0 : -errno;
		close(fd);
		return ret;
	case ACCESS_VM_WRITEV:
		return process_vm_writev(pid, &local, 1, &remote, 1, 0) ==
		       sizeof(value) ? 0 : -errno;
	case ACCESS_VM_READV:
		return process_vm_readv(pid, &local, 1, &remote, 1, 0) ==
		       sizeof(value) ? 0 : -errno;
	case ACCESS_FD_PIPE:
		/* The tracee's read end, opened for writing: the same pipe. */
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		ret = write(fd, (char []){ COMMAND }, 1) == 1 ? 0 : -errno;
		close(fd);
		return ret;
	case ACCESS_FD_MEMFD:
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid,
			 TRACEE_MEMFD);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		ret = pwrite(fd, &value, sizeof(value), 0) == sizeof(value) ?
		      0 : -errno;
		close(fd);
		return ret;
	case ACCESS_CWD:
		snprintf(path, sizeof(path), "/proc/%d/cwd", pid);
		fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		close(fd);
		return 0;
	case ACCESS_ENVIRON:
		snprintf(path, sizeof(path), "/proc/%d/environ", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		ret = read(fd, path, sizeof(path)) >= 0 ? 0 : -errno;
		close(fd);
		return ret;
	case ACCESS_GETFD:
		pidfd = syscall(__NR_pidfd_open, pid, 0);
		if (pidfd < 0)
			return -errno;
		ret = syscall(__NR_pidfd_getfd, pidfd, fd, 0);
		if (ret < 0)
			ret = -errno;
		else
			ret = close(ret) ? -errno : 0;
		close(pidfd);
		return ret;
	}
	return -EINVAL;
}

/*
 * Exits with POKED if it read COMMAND from @hold or found POKED in its
 * memfd or in target_word, else with 0.
 */
static __noreturn void
tracee_main(int ready, int hold, bool nosuid)
{
	int memfd, *shared;
	char c = 0;

	/* Yama's ptrace_scope 1 would refuse a sibling for its own reasons. */
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	memfd = memfd_create("tracee", MFD_CLOEXEC);
	if (memfd < 0 || ftruncate(memfd, sizeof(*shared)) ||
	    dup2(memfd, TRACEE_MEMFD) != TRACEE_MEMFD)
		_exit(102);
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED, memfd, 0);
	if (shared == MAP_FAILED)
		_exit(103);
	if (nosuid && set_nosuid())
		_exit(100);
	if (write(ready, "", 1) != 1)
		_exit(101);
	while (read(hold, &c, 1) < 0 && errno == EINTR)
		;
	if (c == COMMAND || *shared == POKED)
		_exit(POKED);
	_exit(target_word);
}

static int wait_exit_code(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void check_access(struct __test_metadata *const _metadata,
			 const FIXTURE_VARIANT(ptrace) *variant,
			 enum access access)
{
	const bool writes = access == ACCESS_MEM_WRITE ||
			    access == ACCESS_VM_WRITEV ||
			    access == ACCESS_FD_PIPE ||
			    access == ACCESS_FD_MEMFD;
	/*
	 * Opening /proc/PID/mem or environ reports the refusal of
	 * mm_access(), following a /proc/PID link that of the link: EACCES.
	 */
	const int denial = access == ACCESS_MEM_READ ||
			   access == ACCESS_MEM_WRITE ||
			   access == ACCESS_FD_PIPE ||
			   access == ACCESS_FD_MEMFD ||
			   access == ACCESS_CWD ||
			   access == ACCESS_ENVIRON ? EACCES : EPERM;
	struct {
		int access_errno, tracee_code;
	} *res;
	int ready[2], hold[2];
	pid_t tracee = -1, tracer;
	char c;

	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, res);
	res->access_errno = -1;
	res->tracee_code = -1;
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(hold));

	if (variant->topology == SIBLING) {
		tracee = fork();
		ASSERT_LE(0, tracee);
		if (tracee == 0)
			tracee_main(ready[1], hold[0], variant->tracee_nosuid);
		ASSERT_EQ(1, read(ready[0], &c, 1));
	}

	tracer = fork();
	ASSERT_LE(0, tracer);
	if (tracer == 0) {
		if (variant->topology == CHILD_AFTER)
			ASSERT_EQ(0, set_nosuid());
		if (variant->topology != SIBLING) {
			tracee = fork();
			ASSERT_LE(0, tracee);
			if (tracee == 0)
				tracee_main(ready[1], hold[0],
					    variant->tracee_nosuid);
			ASSERT_EQ(1, read(ready[0], &c, 1));
			if (variant->topology == CHILD_BEFORE &&
			    variant->tracer_nosuid)
				ASSERT_EQ(0, set_nosuid());
		} else if (variant->tracer_nosuid) {
			ASSERT_EQ(0, set_nosuid());
		}
		res->access_errno = -try_access(access, tracee, hold[0]);
		if (variant->topology != SIBLING) {
			ASSERT_EQ(1, write(hold[1], "", 1));
			res->tracee_code = wait_exit_code(tracee);
		}
		_exit(0);
	}
	ASSERT_EQ(0, wait_exit_code(tracer));
	if (variant->topology == SIBLING) {
		ASSERT_EQ(1, write(hold[1], "", 1));
		res->tracee_code = wait_exit_code(tracee);
	}

	EXPECT_EQ(variant->denied ? denial : 0, res->access_errno);
	/* A write that worked landed; a refused one left nothing. */
	EXPECT_EQ(writes && !variant->denied ? POKED : 0, res->tracee_code);
	munmap(res, sizeof(*res));
}

TEST_F(ptrace, attach)
{
	check_access(_metadata, variant, ACCESS_ATTACH);
}

TEST_F(ptrace, seize)
{
	check_access(_metadata, variant, ACCESS_SEIZE);
}

TEST_F(ptrace, proc_mem_read)
{
	check_access(_metadata, variant, ACCESS_MEM_READ);
}

TEST_F(ptrace, proc_mem_write)
{
	check_access(_metadata, variant, ACCESS_MEM_WRITE);
}

TEST_F(ptrace, process_vm_writev)
{
	check_access(_metadata, variant, ACCESS_VM_WRITEV);
}

TEST_F(ptrace, process_vm_readv)
{
	check_access(_metadata, variant, ACCESS_VM_READV);
}

TEST_F(ptrace, pidfd_getfd)
{
	check_access(_metadata, variant, ACCESS_GETFD);
}

/* PTRACE_MODE_READ_FSCREDS: a command line into the pipe it reads. */
TEST_F(ptrace, proc_fd_pipe_write)
{
	check_access(_metadata, variant, ACCESS_FD_PIPE);
}

/* PTRACE_MODE_READ_FSCREDS: the memory of a memfd it has mapped. */
TEST_F(ptrace, proc_fd_memfd_write)
{
	check_access(_metadata, variant, ACCESS_FD_MEMFD);
}

TEST_F(ptrace, proc_cwd)
{
	check_access(_metadata, variant, ACCESS_CWD);
}

TEST_F(ptrace, proc_environ)
{
	check_access(_metadata, variant, ACCESS_ENVIRON);
}

/* PTRACE_TRACEME hands the child to its parent: the same rule applies. */

FIXTURE(traceme) {};

FIXTURE_VARIANT(traceme)
{
	bool parent_nosuid;	/* set after forking the child */
	bool inherited;		/* set before forking: the child has it */
	bool child_nosuid;	/* set by the child itself */
	bool denied;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(traceme, plain) {
};

FIXTURE_VARIANT_ADD(traceme, nosuid_parent) {
	.parent_nosuid = true,
	.denied = true,
};

FIXTURE_VARIANT_ADD(traceme, both_nosuid) {
	.inherited = true,
};

FIXTURE_VARIANT_ADD(traceme, nosuid_child) {
	.child_nosuid = true,
};

/* clang-format on */

FIXTURE_SETUP(traceme)
{
	REQUIRE_NOSUID_AND_ROOT();
	drop_to_user(_metadata);
}

FIXTURE_TEARDOWN(traceme)
{
}

TEST_F(traceme, traceme)
{
	int go[2];
	pid_t child;
	char c;

	ASSERT_EQ(0, pipe(go));
	if (variant->inherited)
		ASSERT_EQ(0, set_nosuid());
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(100);
		if (variant->child_nosuid && set_nosuid())
			_exit(101);
		_exit(ptrace(PTRACE_TRACEME, 0, NULL, NULL) ? errno : 0);
	}
	if (variant->parent_nosuid)
		ASSERT_EQ(0, set_nosuid());
	ASSERT_EQ(1, write(go[1], "", 1));
	EXPECT_EQ(variant->denied ? EPERM : 0, wait_exit_code(child));
}

/*
 * 7. What the flag is for: since it implies no_new_privs, an unprivileged
 * task may then install seccomp filters and Landlock rulesets.
 */

TEST(seccomp_after_flag)
{
	struct sock_filter filter[] = {
		/* Not a security policy: the architecture is not checked. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | E2BIG),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = ARRAY_SIZE(filter),
		.filter = filter,
	};

	REQUIRE_NOSUID_AND_ROOT();
	drop_to_user(_metadata);

	/* Control: without no_new_privs the user may not. */
	ASSERT_EQ(-1, prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0));
	ASSERT_EQ(EACCES, errno);

	ASSERT_EQ(0, set_nosuid());
	ASSERT_EQ(0, prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0));
	/* Not getppid(): libc does not expect it to fail. */
	EXPECT_EQ(-1, syscall(__NR_getppid));
	EXPECT_EQ(E2BIG, errno);
}

TEST(landlock_after_flag)
{
	struct landlock_ruleset_attr attr = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_READ_DIR,
	};
	int ruleset;

	REQUIRE_NOSUID_AND_ROOT();
	drop_to_user(_metadata);
	ruleset = syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr),
			  0);
	if (ruleset < 0 && (errno == EOPNOTSUPP || errno == ENOSYS))
		SKIP(return, "Landlock not enabled");
	ASSERT_LE(0, ruleset);

	/* Control: without no_new_privs the user may not. */
	ASSERT_EQ(-1, syscall(__NR_landlock_restrict_self, ruleset, 0));
	ASSERT_EQ(EPERM, errno);
	ASSERT_LE(0, open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));

	ASSERT_EQ(0, set_nosuid());
	ASSERT_EQ(0, syscall(__NR_landlock_restrict_self, ruleset, 0));
	EXPECT_EQ(-1, open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	EXPECT_EQ(EACCES, errno);
}

TEST_HARNESS_MAIN
