// SPDX-License-Identifier: GPL-2.0
/*
 * The per-user limit on network namespaces made through the nosuid path.
 *
 * A nosuid task without CAP_SYS_ADMIN may create network namespaces (see
 * nosuid_netns_test.c).  Each costs memory, and its teardown runs later on
 * a workqueue, so what one user can hold this way is bounded by
 * /proc/sys/user/max_nosuid_net_namespaces (default: RAM / (400 * 256 KiB),
 * at least 1); past it, ENOSPC.  Namespaces created with privilege are not
 * counted.  The general user.max_net_namespaces applies as well (tested in
 * nosuid_netns_test.c).
 *
 * A namespace is held the way a sandbox would hold several: the task opens
 * /proc/self/ns/net, which keeps its current namespace, and unshares into
 * a new one.  Every unprivileged or differently privileged part runs in a
 * child process ("holder") that reports through a pipe and keeps its
 * namespaces until the test releases it; the test process stays root, so
 * that its teardown can always put the sysctls back.
 */

#define _GNU_SOURCE
#include "common.h"

#define NOSUID_LIMIT_SYSCTL "/proc/sys/user/max_nosuid_net_namespaces"
#define NO_LIMIT "kernel without the nosuid netns limit"

/* The contract's estimate of what one namespace costs, in KiB. */
#define NETNS_KIB 256
/* The default: RAM / (400 * 256 KiB). */
#define DEFAULT_DIVISOR (400 * NETNS_KIB)
/* More than a 1 GiB guest's default; enough for any sane setting. */
#define MAX_HELD 256
/*
 * How long to wait for namespaces of earlier tests (or of this one) to be
 * torn down: cleanup_net() runs on a workqueue, and their charge comes
 * back only then.
 */
#define SETTLE_S 10.0

#define OTHER_USER_ID 1001

enum holder_kind {
	ROOT_HOLDER,
	NOSUID_HOLDER,		/* uid @uid, nosuid, no capabilities */
	PRIVILEGED_HOLDER,	/* uid @uid, not nosuid, CAP_SYS_ADMIN */
};

/*
 * Become what @kind says, without the harness's ASSERTs: a failed ASSERT
 * in a child that dropped privileges can make the harness run the
 * fixture's parent teardown there, as that user.  Returns 0 or an errno.
 */
static int become(enum holder_kind kind, uid_t uid)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (kind == ROOT_HOLDER)
		return 0;
	/* Keep the permitted set across the uid change, to use it below. */
	if (kind == PRIVILEGED_HOLDER && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return errno;
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return errno;
	if (kind == NOSUID_HOLDER)
		return prctl(PR_SET_NOSUID, 1, 0, 0, 0) ? errno : 0;
	if (syscall(__NR_capget, &hdr, data))
		return errno;
	data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective |=
		CAP_TO_MASK(CAP_SYS_ADMIN);
	if (syscall(__NR_capset, &hdr, data))
		return errno;
	return 0;
}

/*
 * One more namespace: keep the current one with an fd, move into a new
 * one.  Returns 0 or the errno of unshare().
 */
static int one_more(void)
{
	int fd = open("/proc/self/ns/net", O_RDONLY);

	if (fd < 0)
		return errno;
	if (unshare(CLONE_NEWNET)) {
		int err = errno;

		close(fd);
		return err;
	}
	return 0;
}

/* clone(CLONE_NEWNET): 0 or its errno; the child, if any, exits at once. */
static int clone_netns(void)
{
	pid_t pid = sys_clone(CLONE_NEWNET);

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return errno;
	waitpid(pid, NULL, 0);
	return 0;
}

struct report {
	int setup;	/* errno of become(), or 0 */
	int count;	/* namespaces made and held */
	int err;	/* errno of the unshare() that stopped it, or 0 */
	int clone_err;	/* then clone(CLONE_NEWNET): 0 or errno */
};

struct holder {
	pid_t pid;
	int release;
	struct report r;
};

/*
 * Start a child of @kind that makes up to @want namespaces and holds them
 * until release_holder().  ENOSPC is retried for up to SETTLE_S while
 * fewer than @settle_below are held: namespaces that earlier tests let go
 * of may still be charged.
 */
static void start_holder(struct __test_metadata *const _metadata,
			 struct holder *h, enum holder_kind kind, uid_t uid,
			 int want, int settle_below)
{
	int ready[2], release[2];
	char c;

	memset(h, 0, sizeof(*h));
	h->r.setup = EPROTO;
	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(release, O_CLOEXEC));
	h->pid = fork();
	ASSERT_LE(0, h->pid);
	if (h->pid == 0) {
		struct report r = {};
		double deadline = now() + SETTLE_S;

		close(ready[0]);
		close(release[1]);
		r.setup = become(kind, uid);
		while (!r.setup && r.count < want) {
			r.err = one_more();
			if (!r.err) {
				r.count++;
			} else if (r.err == ENOSPC && r.count < settle_below &&
				   now() < deadline) {
				usleep(20 * 1000);
			} else {
				break;
			}
		}
		if (!r.setup)
			r.clone_err = clone_netns();
		if (write(ready[1], &r, sizeof(r)) != sizeof(r))
			_exit(1);
		/* Hold until the test closes its end. */
		if (read(release[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(ready[1]);
	close(release[0]);
	h->release = release[1];
	if (read(ready[0], &h->r, sizeof(h->r)) != sizeof(h->r))
		h->r.setup = EPROTO;
	close(ready[0]);
}

/* Let go: the holder exits, its namespaces go to cleanup_net(). */
static void release_holder(struct holder *h)
{
	close(h->release);
	waitpid(h->pid, NULL, 0);
}

/* One namespace for @kind, at once let go: 0 or the errno. */
static int try_netns(struct __test_metadata *const _metadata,
		     enum holder_kind kind, uid_t uid)
{
	struct holder h;

	start_holder(_metadata, &h, kind, uid, 1, 0);
	release_holder(&h);
	return h.r.setup ? -h.r.setup : h.r.err;
}

/*
 * Wait until a nosuid uid 1000 may create a namespace again; returns 0 or
 * the last errno, and how long it took in *@waited.
 */
static int wait_for_charge(struct __test_metadata *const _metadata,
			   double *waited)
{
	const double start = now();
	int err;

	while ((err = try_netns(_metadata, NOSUID_HOLDER, USER_ID)) == ENOSPC &&
	       now() < start + SETTLE_S)
		usleep(20 * 1000);
	*waited = now() - start;
	return err;
}

FIXTURE(limit)
{
	/* The values found, put back by the teardown. */
	int limit;
	int clone;
};

FIXTURE_SETUP(limit)
{
	self->limit = -1;
	self->clone = -1;
	REQUIRE_NOSUID();
	if (!have_nosuid_netns())
		SKIP(return, NO_FEATURE);
	self->limit = read_sysctl(NOSUID_LIMIT_SYSCTL);
	if (self->limit < 0)
		SKIP(return, NO_LIMIT);
	self->clone = read_sysctl(NETNS_CLONE_SYSCTL);
	ASSERT_LE(0, self->clone);
	/* The nosuid path must be open for its limit to be seen. */
	ASSERT_EQ(0, write_sysctl(NETNS_CLONE_SYSCTL, 1));
}

FIXTURE_TEARDOWN_PARENT(limit)
{
	/* Only root can; the test process never drops its privileges. */
	if (geteuid() != 0)
		return;
	if (self->limit >= 0)
		EXPECT_EQ(0, write_sysctl(NOSUID_LIMIT_SYSCTL, self->limit));
	if (self->clone >= 0)
		EXPECT_EQ(0, write_sysctl(NETNS_CLONE_SYSCTL, self->clone));
}

/*
 * The default follows the RAM (about 10 in the 1 GiB guest), is at least 1,
 * and at the contract's 256 KiB each costs under 1 % of it.  MemTotal may
 * have grown a little since the kernel computed the default (init memory
 * is freed late), so one off is accepted.
 */
TEST_F(limit, default_from_ram)
{
	const long total = meminfo_kib("MemTotal");
	long expected;

	ASSERT_LT(0, total);
	expected = total / DEFAULT_DIVISOR;
	if (expected < 1)
		expected = 1;
	TH_LOG("max_nosuid_net_namespaces %d; MemTotal %ld KiB gives %ld",
	       self->limit, total, expected);
	EXPECT_LE(1, self->limit);
	EXPECT_LE(expected - 1, self->limit);
	EXPECT_GE(expected + 1, self->limit);
	EXPECT_GT(total / 100, (long)self->limit * NETNS_KIB);
}

/*
 * A nosuid user fills its allowance, unshare() and clone() then fail with
 * ENOSPC.  What it holds is measured (MemAvailable before and after) and
 * must stay under 1 % of the RAM.  The limit is per user: another process
 * of the same user is refused too, another user is not.  Once let go, the
 * charge comes back when cleanup_net() has run.
 */
TEST_F_TIMEOUT(limit, nosuid_user_fills_limit, 90)
{
	const long total = meminfo_kib("MemTotal");
	long before, held, used;
	struct holder h;
	double waited;
	int err;

	ASSERT_LE(1, self->limit);
	ASSERT_GE(MAX_HELD, self->limit);
	before = mem_available_kib();
	ASSERT_LT(0, before);

	start_holder(_metadata, &h, NOSUID_HOLDER, USER_ID, self->limit + 1,
		     self->limit);
	held = mem_available_kib();
	ASSERT_EQ(0, h.r.setup);
	EXPECT_EQ(self->limit, h.r.count);
	EXPECT_EQ(ENOSPC, h.r.err);
	EXPECT_EQ(ENOSPC, h.r.clone_err);
	EXPECT_EQ(ENOSPC, try_netns(_metadata, NOSUID_HOLDER, USER_ID));
	/* Control: per user, not for everybody. */
	EXPECT_EQ(0, try_netns(_metadata, NOSUID_HOLDER, OTHER_USER_ID));

	used = before - held;
	TH_LOG("%d namespaces: %ld KiB, %ld KiB each, %.2f %% of MemTotal (%ld KiB)",
	       h.r.count, used, h.r.count ? used / h.r.count : 0,
	       100.0 * used / total, total);
	EXPECT_GT(total / 100, used);

	release_holder(&h);
	err = wait_for_charge(_metadata, &waited);
	TH_LOG("charge back %.3f s after the holder exited; %ld KiB back so far",
	       waited, mem_available_kib() - held);
	EXPECT_EQ(0, err);
}

/* An administrator's lower limit is the limit, at the next creation. */
TEST_F_TIMEOUT(limit, lowered_limit, 60)
{
	struct holder h;

	ASSERT_EQ(0, write_sysctl(NOSUID_LIMIT_SYSCTL, 3));
	ASSERT_EQ(3, read_sysctl(NOSUID_LIMIT_SYSCTL));
	start_holder(_metadata, &h, NOSUID_HOLDER, USER_ID, 4, 3);
	ASSERT_EQ(0, h.r.setup);
	EXPECT_EQ(3, h.r.count);
	EXPECT_EQ(ENOSPC, h.r.err);
	EXPECT_EQ(ENOSPC, h.r.clone_err);
	/* Control: one more allowed, one more made, with the 3 still held. */
	ASSERT_EQ(0, write_sysctl(NOSUID_LIMIT_SYSCTL, 4));
	EXPECT_EQ(0, try_netns(_metadata, NOSUID_HOLDER, USER_ID));
	release_holder(&h);
}

/* 0 allows none (ENOSPC, where kernel.nosuid_netns_clone=0 gives EPERM). */
TEST_F_TIMEOUT(limit, zero_limit, 60)
{
	double waited;

	ASSERT_EQ(0, write_sysctl(NOSUID_LIMIT_SYSCTL, 0));
	EXPECT_EQ(ENOSPC, try_netns(_metadata, NOSUID_HOLDER, USER_ID));
	/* Controls: privilege is not limited by it; the old value allows. */
	EXPECT_EQ(0, try_netns(_metadata, ROOT_HOLDER, 0));
	ASSERT_EQ(0, write_sysctl(NOSUID_LIMIT_SYSCTL, self->limit));
	EXPECT_EQ(0, wait_for_charge(_metadata, &waited));
}

/* Root's namespaces do not count, even while the user is at its limit. */
TEST_F_TIMEOUT(limit, root_not_counted, 60)
{
	struct holder user, root;

	ASSERT_GE(MAX_HELD, self->limit);
	start_holder(_metadata, &user, NOSUID_HOLDER, USER_ID,
		     self->limit + 1, self->limit);
	ASSERT_EQ(0, user.r.setup);
	EXPECT_EQ(self->limit, user.r.count);
	EXPECT_EQ(ENOSPC, user.r.err);

	start_holder(_metadata, &root, ROOT_HOLDER, 0, self->limit + 1, 0);
	ASSERT_EQ(0, root.r.setup);
	EXPECT_EQ(self->limit + 1, root.r.count);
	EXPECT_EQ(0, root.r.err);
	EXPECT_EQ(0, root.r.clone_err);
	release_holder(&root);
	release_holder(&user);
}

/*
 * The same user with CAP_SYS_ADMIN (and without nosuid) takes the ordinary
 * path: its namespaces are not charged to the nosuid allowance, which stays
 * whole for its nosuid processes.
 */
TEST_F_TIMEOUT(limit, privileged_user_not_counted, 60)
{
	struct holder priv, user;

	ASSERT_GE(MAX_HELD, self->limit);
	start_holder(_metadata, &priv, PRIVILEGED_HOLDER, USER_ID,
		     self->limit + 1, 0);
	ASSERT_EQ(0, priv.r.setup);
	EXPECT_EQ(self->limit + 1, priv.r.count);
	EXPECT_EQ(0, priv.r.err);

	start_holder(_metadata, &user, NOSUID_HOLDER, USER_ID,
		     self->limit + 1, self->limit);
	ASSERT_EQ(0, user.r.setup);
	EXPECT_EQ(self->limit, user.r.count);
	EXPECT_EQ(ENOSPC, user.r.err);
	release_holder(&user);
	release_holder(&priv);
}

TEST_HARNESS_MAIN
