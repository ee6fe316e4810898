// SPDX-License-Identifier: GPL-2.0
/*
 * A namespace storm by one nosuid user.
 *
 * Unprivileged CLONE_NEWNET lets any nosuid task make network namespaces;
 * user.max_nosuid_net_namespaces bounds how many one user holds (see
 * netns_limit_test.c).  This test checks that the bound holds under load
 * and that a storm does not hurt anybody else:
 *
 * Phase A: root makes and drops a namespace in a loop (a forked child
 *          unshares and exits): every cycle works.
 * Phase B: four nosuid processes of uid 1000 make namespaces in parallel
 *          until ENOSPC and keep them (an fd of /proc/self/ns/net each),
 *          then keep releasing and making them, while root runs the loop
 *          of phase A again.  Together they hold exactly the limit (it is
 *          per user), never more at any moment, every failure is ENOSPC,
 *          and every one of root's cycles still works.
 * Phase C: the holders are killed; within 20 s a fresh nosuid process of
 *          uid 1000 can make exactly the limit again (every namespace of
 *          the storm was freed and uncharged: teardown runs later, on a
 *          workqueue), and MemAvailable is back within 5 % of the start.
 *
 * Only behaviour decides the result.  How much slower root's cycle gets
 * during a storm is a question of cost, not of correctness: on a shared
 * two-CPU emulated machine any wall-clock bound here would measure CPU
 * sharing and fail by chance.  "make bench" answers it in instructions,
 * against an equal load of processes that make no namespaces.
 *
 * The storm runs at nice 19, as in the bench.  Every count is bounded and
 * every wait has a deadline, so the test ends in well under a minute on
 * an emulated two-CPU guest whatever the kernel does; the deadlines are
 * for asynchronous teardown to happen at all, and are generous.
 */

#define _GNU_SOURCE
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "common.h"

#define NOSUID_LIMIT_SYSCTL "/proc/sys/user/max_nosuid_net_namespaces"
#define NO_LIMIT "kernel without the nosuid netns limit (no " \
	NOSUID_LIMIT_SYSCTL ")"

/* Processes of the storm, all uid 1000: they share one allowance. */
#define STORMERS 4
/* More than a 1 GiB guest's default (about 10); bounds every array. */
#define MAX_HELD 256
/* Root's create/destroy cycles, alone and during the storm. */
#define ROOT_CYCLES 30
/*
 * Namespaces that earlier tests let go of may still be charged (teardown
 * is asynchronous): the first fill waits up to this long for them.
 */
#define SETTLE_S 10.0
/* How long the last phase waits for the storm's charge to come back. */
#define REFILL_S 20.0
#define MEM_TOLERANCE_PCT 5

/*
 * uid/gid 1000, no groups, nosuid, without the harness's ASSERTs (a child
 * must not longjmp into the test's frame).  The parent-death signal is set
 * after the uid change, which clears it: a storm process outliving a
 * failed test would keep its namespaces charged for the tests after it.
 * Returns 0 or an errno.
 */
static int become_nosuid_user(pid_t parent)
{
	if (setgroups(0, NULL) || setresgid(USER_ID, USER_ID, USER_ID) ||
	    setresuid(USER_ID, USER_ID, USER_ID))
		return errno;
	/* Nobody may open /proc/self/ns/net of a task not dumpable but root. */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) ||
	    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0))
		return errno;
	if (getppid() != parent)
		_exit(1);
	if (prctl(PR_SET_NOSUID, 1, 0, 0, 0))
		return errno;
	return 0;
}

/* The namespaces a process holds, oldest first; the last is its own. */
struct held {
	int fd[MAX_HELD + 1];
	int n;
};

/*
 * One more namespace: unshare into a new one and keep it with an fd, so
 * that it stays alive when the process moves on to the next.  Returns 0 or
 * the errno of unshare() (or of open()).
 */
static int one_more(struct held *h)
{
	int fd;

	if (h->n > MAX_HELD)
		return E2BIG;
	if (unshare(CLONE_NEWNET))
		return errno;
	fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	h->fd[h->n++] = fd;
	return 0;
}

/* Let go of the oldest namespace; never the process's own (the last). */
static bool release_oldest(struct held *h)
{
	if (h->n < 2)
		return false;
	close(h->fd[0]);
	memmove(h->fd, h->fd + 1, --h->n * sizeof(h->fd[0]));
	return true;
}

/* What one storm process reports, in shared memory. */
struct stormer {
	int setup;		/* errno of become_nosuid_user(), or 0 */
	int filled;		/* namespaces held when the fill stopped */
	int fill_err;		/* the errno that stopped it */
	long creates;		/* during the churn */
	long releases;
	long enospc;
	long other;		/* failures that were not ENOSPC */
	int other_err;		/* the first of them */
	int held;		/* at the end of the churn */
};

struct storm {
	int stop;		/* end of the churn */
	/*
	 * Namespaces held by all storm processes: counted down before the
	 * fd is closed and up after unshare() returned, so never more than
	 * the truth.
	 */
	int total;
	int peak;
	struct stormer s[STORMERS];
};

static void count_one(struct storm *st)
{
	int total = __atomic_add_fetch(&st->total, 1, __ATOMIC_SEQ_CST);
	int peak = __atomic_load_n(&st->peak, __ATOMIC_SEQ_CST);

	while (total > peak &&
	       !__atomic_compare_exchange_n(&st->peak, &peak, total, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
}

/* Blocks until the write end of @fd is closed by the test. */
static void wait_eof(int fd)
{
	char c;

	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
}

static void report_to(int fd, int idx)
{
	if (write(fd, &idx, sizeof(idx)) != sizeof(idx))
		_exit(1);
}

static __noreturn void
stormer(struct storm *st, int idx, int limit, pid_t parent, int go_fill,
	int go_churn, int report)
{
	struct stormer *me = &st->s[idx];
	struct held h = {};
	double deadline;
	int err;

	me->setup = become_nosuid_user(parent);
	if (!me->setup && setpriority(PRIO_PROCESS, 0, 19))
		me->setup = errno;
	wait_eof(go_fill);

	/*
	 * Fill: the four race for the one allowance.  ENOSPC while the storm
	 * holds less than the limit can only be a charge of an earlier test
	 * that is not back yet: wait for it, up to SETTLE_S.
	 */
	deadline = now() + SETTLE_S;
	err = 0;
	while (!me->setup) {
		err = one_more(&h);
		if (!err) {
			count_one(st);
		} else if (err == ENOSPC &&
			   __atomic_load_n(&st->total, __ATOMIC_SEQ_CST) < limit &&
			   now() < deadline) {
			usleep(20 * 1000);
		} else {
			break;
		}
	}
	me->filled = h.n;
	me->fill_err = err;
	report_to(report, idx);
	wait_eof(go_churn);

	/* Churn: let one go, make one, as fast as the allowance permits. */
	while (!me->setup && !__atomic_load_n(&st->stop, __ATOMIC_SEQ_CST)) {
		if (h.n >= 2) {
			__atomic_sub_fetch(&st->total, 1, __ATOMIC_SEQ_CST);
			release_oldest(&h);
			me->releases++;
		}
		err = one_more(&h);
		if (!err) {
			count_one(st);
			me->creates++;
		} else if (err == ENOSPC) {
			me->enospc++;
		} else {
			if (!me->other++)
				me->other_err = err;
		}
	}
	me->held = h.n;
	report_to(report, idx);
	/* Hold everything until the test kills us. */
	for (;;)
		pause();
}

/* Waits up to @timeout_s for @n reports on @fd; returns how many came. */
static int read_reports(int fd, int n, double timeout_s)
{
	const double deadline = now() + timeout_s;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int got = 0, idx;

	while (got < n) {
		int ms = (deadline - now()) * 1000;

		if (ms <= 0 || poll(&pfd, 1, ms) <= 0)
			break;
		if (read(fd, &idx, sizeof(idx)) != sizeof(idx))
			break;
		got++;
	}
	return got;
}

/*
 * Root makes a namespace in a forked child that exits at once (its
 * teardown is queued then).  Returns 0 or the errno of the child's
 * unshare(), or NO_REPORT if the child did not report.
 */
#define NO_REPORT 255

static int root_cycle(void)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid == 0)
		_exit(unshare(CLONE_NEWNET) ? errno : 0);
	if (pid < 0)
		return errno;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return NO_REPORT;
	return WEXITSTATUS(status);
}

/* What root's cycles did: how many worked, and the first failure. */
struct cycles {
	int done;
	int errors;
	int first_err;
};

/* @n cycles back to back; stops early after 10 failures. */
static struct cycles root_cycles(int n)
{
	struct cycles c = {};
	int err, i;

	for (i = 0; i < n && c.errors < 10; i++) {
		err = root_cycle();
		if (!err)
			c.done++;
		else if (!c.errors++)
			c.first_err = err;
	}
	return c;
}

/* A fresh process's fill, for phase C. */
struct refill {
	int setup;
	int count;	/* namespaces it made */
	int err;	/* the errno that stopped it */
	double took_s;	/* from the start of its wait */
};

/*
 * A new nosuid uid 1000 process makes namespaces until ENOSPC.  ENOSPC
 * before the limit is a charge not back yet: retried until @deadline.
 * Exactly the limit means every earlier namespace of the user is gone.
 * The process exits after its report, letting go of what it made.
 */
static struct refill refill_until(int limit, double start, double deadline)
{
	struct refill r = { .setup = EPROTO };
	const pid_t parent = getpid();
	int pipefd[2];
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return r;
	pid = fork();
	if (pid == 0) {
		struct held h = {};

		close(pipefd[0]);
		r.setup = become_nosuid_user(parent);
		while (!r.setup && h.n <= limit) {
			r.err = one_more(&h);
			if (!r.err)
				continue;
			if (r.err != ENOSPC || h.n >= limit || now() >= deadline)
				break;
			usleep(20 * 1000);
		}
		r.count = h.n;
		r.took_s = now() - start;
		if (write(pipefd[1], &r, sizeof(r)) != sizeof(r))
			_exit(1);
		_exit(0);
	}
	close(pipefd[1]);
	if (pid > 0) {
		if (read(pipefd[0], &r, sizeof(r)) != sizeof(r))
			r.setup = EPROTO;
		waitpid(pid, NULL, 0);
	}
	close(pipefd[0]);
	return r;
}

FIXTURE(netns)
{
	int limit;
	int clone;		/* kernel.nosuid_netns_clone, put back */
	pid_t pids[STORMERS];	/* storm processes still alive */
};

FIXTURE_SETUP(netns)
{
	self->limit = -1;
	self->clone = -1;
	memset(self->pids, 0, sizeof(self->pids));
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

FIXTURE_TEARDOWN_PARENT(netns)
{
	int i;

	/* Storm processes of a test that failed half-way. */
	for (i = 0; i < STORMERS; i++)
		if (self->pids[i] > 0)
			kill(self->pids[i], SIGKILL);
	if (geteuid() == 0 && self->clone >= 0)
		EXPECT_EQ(0, write_sysctl(NETNS_CLONE_SYSCTL, self->clone));
}

TEST_F_TIMEOUT(netns, storm, 60)
{
	int go_fill[2], go_churn[2], report[2];
	long mem_start, mem_full, mem_end, mem_diff;
	struct cycles alone, during;
	struct storm *st;
	struct refill r;
	int i, got, filled = 0, bad_fill = 0;
	long creates = 0, releases = 0, enospc = 0, other = 0;
	double start;

	ASSERT_GE(MAX_HELD, self->limit);
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, st);

	mem_start = mem_available_kib();
	ASSERT_LT(0, mem_start);

	/* Phase A: root alone, the control for phase B. */
	alone = root_cycles(ROOT_CYCLES);
	ASSERT_EQ(0, alone.errors)
	{
		TH_LOG("root's unshare(CLONE_NEWNET): %s",
		       strerror(alone.first_err));
	}
	ASSERT_EQ(ROOT_CYCLES, alone.done);

	/* Phase B: the storm. */
	ASSERT_EQ(0, pipe2(go_fill, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(go_churn, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(report, O_CLOEXEC));
	for (i = 0; i < STORMERS; i++) {
		const pid_t parent = getpid();
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (pid == 0) {
			close(go_fill[1]);
			close(go_churn[1]);
			close(report[0]);
			stormer(st, i, self->limit, parent, go_fill[0],
				go_churn[0], report[1]);
		}
		self->pids[i] = pid;
	}
	close(go_fill[0]);
	close(go_churn[0]);
	close(report[1]);

	/* All four start at once. */
	close(go_fill[1]);
	got = read_reports(report[0], STORMERS, SETTLE_S + 10);
	ASSERT_EQ(STORMERS, got);
	for (i = 0; i < STORMERS; i++) {
		struct stormer *s = &st->s[i];

		ASSERT_EQ(0, s->setup)
		{
			TH_LOG("storm process %d: %s", i, strerror(s->setup));
		}
		filled += s->filled;
		if (s->fill_err != ENOSPC) {
			bad_fill++;
			TH_LOG("storm process %d: fill stopped by %s after %d",
			       i, strerror(s->fill_err), s->filled);
		}
	}
	mem_full = mem_available_kib();
	TH_LOG("phase B: %d storm processes hold %d namespaces (%d %d %d %d), limit %d; MemAvailable %ld KiB less",
	       STORMERS, filled, st->s[0].filled, st->s[1].filled,
	       st->s[2].filled, st->s[3].filled, self->limit,
	       mem_start - mem_full);
	/* Per user, not per process: together exactly the limit. */
	EXPECT_EQ(self->limit, filled);
	EXPECT_EQ(0, bad_fill);

	/* Churn, and root's loop again meanwhile. */
	close(go_churn[1]);
	during = root_cycles(ROOT_CYCLES);
	__atomic_store_n(&st->stop, 1, __ATOMIC_SEQ_CST);
	got = read_reports(report[0], STORMERS, 10);
	close(report[0]);
	EXPECT_EQ(STORMERS, got);

	for (i = 0; i < STORMERS; i++) {
		struct stormer *s = &st->s[i];

		creates += s->creates;
		releases += s->releases;
		enospc += s->enospc;
		other += s->other;
		if (s->other)
			TH_LOG("storm process %d: %ld failures not ENOSPC, first %s",
			       i, s->other, strerror(s->other_err));
	}
	TH_LOG("churn: %ld released, %ld made, %ld ENOSPC, %ld other failures; at most %d held at once",
	       releases, creates, enospc, other, st->peak);
	EXPECT_EQ(0, other);
	EXPECT_GE(self->limit, st->peak);

	/* The storm holds the user's allowance, not root's. */
	TH_LOG("root during the storm: %d of %d cycles worked",
	       during.done, ROOT_CYCLES);
	EXPECT_EQ(0, during.errors)
	{
		TH_LOG("root's unshare(CLONE_NEWNET) during the storm: %s",
		       strerror(during.first_err));
	}
	EXPECT_EQ(ROOT_CYCLES, during.done);

	/* Phase C: let everything go, wait for the whole charge to be back. */
	for (i = 0; i < STORMERS; i++) {
		kill(self->pids[i], SIGKILL);
		waitpid(self->pids[i], NULL, 0);
		self->pids[i] = 0;
	}
	start = now();
	r = refill_until(self->limit, start, start + REFILL_S);
	ASSERT_EQ(0, r.setup)
	{
		TH_LOG("refill process: %s", strerror(r.setup));
	}
	TH_LOG("phase C: a fresh process made %d of %d namespaces %.3f s after the storm ended, then %s",
	       r.count, self->limit, r.took_s, strerror(r.err));
	EXPECT_EQ(self->limit, r.count);
	EXPECT_EQ(ENOSPC, r.err);

	mem_end = mem_available_kib();
	mem_diff = mem_end > mem_start ? mem_end - mem_start :
					 mem_start - mem_end;
	TH_LOG("MemAvailable: %ld KiB at the start, %ld KiB at the end (%+ld KiB, %.2f %%)",
	       mem_start, mem_end, mem_end - mem_start,
	       100.0 * (mem_end - mem_start) / mem_start);
	EXPECT_GE(mem_start * MEM_TOLERANCE_PCT / 100, mem_diff);

	munmap(st, sizeof(*st));
}

TEST_HARNESS_MAIN
