// SPDX-License-Identifier: GPL-2.0
/*
 * Closing the gate (PR_SET_NETWORK) or setting PR_SET_NOSUID races a
 * child's PTRACE_TRACEME.  Either may win, but never both: a gated (or
 * nosuid) tracer holding an ungated (or plain) tracee could act through it,
 * which is exactly what the EBUSY for a caller that traces someone and the
 * EPERM for a TRACEME toward such a parent are there to prevent.  So in
 * every try one of these holds:
 *
 *   the child got in first: TRACEME 0, and the prctl fails with EBUSY;
 *   the parent got in first: the prctl returns 0, and TRACEME fails, EPERM.
 *
 * Each try is a fresh pair: P (uid 1000; nosuid already when the gate is
 * tested) forks C, both spin on a flag in shared memory, then C calls
 * PTRACE_TRACEME while P calls the prctl.  In the *_tsync variants P has a
 * second thread, which forks C (so C's tracer would be that thread, not
 * the caller), and P's prctl applies to both threads (PR_NOSUID_TSYNC,
 * PR_NETWORK_TSYNC): the other thread's flag or gate must be ordered
 * against TRACEME as the caller's is.  A delay on one side or the
 * other, adjusted after each try, keeps the two calls meeting.  On one CPU
 * there is no race to see: the test skips there (the vmboot test fails on
 * such a guest).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <time.h>

#include "common.h"

#define RACE_TRIES 300
/* Give up on a partner that never arrives (it crashed): a failure, not a hang. */
#define WAIT_LIMIT_NS (10 * 1000000000LL)

/* Which prctl P calls; C never calls it, so it stays ungated/plain. */
enum prctl_layer {
	LAYER_NOSUID,	/* P is uid 1000 only; PR_SET_NOSUID */
	LAYER_NETWORK,	/* P and C are nosuid; PR_SET_NETWORK */
};

/* How the two calls are ordered. */
enum order {
	NO_PRCTL,	/* control: TRACEME alone */
	PRCTL_FIRST,	/* C calls TRACEME once P's prctl has returned */
	TRACEME_FIRST,	/* P calls the prctl once C's TRACEME has returned */
	RACE,		/* both at once */
};

/* Shared by the test, P and C (MAP_SHARED survives fork). */
struct shared {
	int ready;		/* C is spinning on go */
	int go;
	int traceme_done;
	int traceme_ret, traceme_errno;
	int prctl_ret, prctl_errno;
	int setup_line;		/* a setup step of P or C failed here */
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Spin until *flag is set; false after WAIT_LIMIT_NS. */
static bool wait_flag(int *flag)
{
	long long start = 0;
	unsigned long spins;

	for (spins = 1; !__atomic_load_n(flag, __ATOMIC_ACQUIRE); spins++) {
		/* Tight on purpose: the partner runs on the other CPU. */
		if (spins % 4096)
			continue;
		if (!start)
			start = now_ns();
		else if (now_ns() - start > WAIT_LIMIT_NS)
			return false;
	}
	return true;
}

static void set_flag(int *flag)
{
	__atomic_store_n(flag, 1, __ATOMIC_RELEASE);
}

static void delay(unsigned int loops)
{
	unsigned int i;

	/* "+m": i is kept in memory, so the empty loop is not optimised out. */
	for (i = 0; i < loops; i++)
		__asm__ __volatile__("" : "+m" (i));
}

#define SETUP_FAILED(sh)                                                \
	do {                                                            \
		__atomic_store_n(&(sh)->setup_line, __LINE__,           \
				 __ATOMIC_RELEASE);                     \
		_exit(1);                                               \
	} while (0)

static __noreturn void
run_tracee(struct shared *sh, unsigned int loops)
{
	long ret;

	set_flag(&sh->ready);
	if (!wait_flag(&sh->go))
		SETUP_FAILED(sh);
	delay(loops);
	ret = ptrace(PTRACE_TRACEME, 0, NULL, NULL);
	sh->traceme_errno = ret ? errno : 0;
	sh->traceme_ret = ret;
	set_flag(&sh->traceme_done);
	/* Traced or not, nothing stops it here: no signal, no exec. */
	_exit(0);
}

static void call_prctl(struct shared *sh, enum prctl_layer layer, bool tsync)
{
	int ret;

	if (layer == LAYER_NETWORK)
		ret = prctl(PR_SET_NETWORK, PR_NETWORK_OFF,
			    tsync ? PR_NETWORK_TSYNC : 0, 0, 0);
	else
		ret = prctl(PR_SET_NOSUID, 1, tsync ? PR_NOSUID_TSYNC : 0, 0, 0);
	sh->prctl_errno = ret ? errno : 0;
	sh->prctl_ret = ret;
}

/* Reap C, which may be our tracee: a stop is possible, so kill it then. */
static bool reap(pid_t pid)
{
	int status;

	for (;;) {
		if (waitpid(pid, &status, __WALL) != pid)
			return false;
		if (WIFEXITED(status))
			return WEXITSTATUS(status) == 0;
		if (WIFSIGNALED(status))
			return false;
		/* Stopped: only as a tracee.  Not expected; do not hang. */
		kill(pid, SIGKILL);
	}
}

/* The *_tsync variants: C's parent is P's second thread. */
struct forker {
	struct shared *sh;
	unsigned int loops_c;
	pid_t pid;
	int hold[2];
};

static void *fork_tracee(void *arg)
{
	struct forker *f = arg;
	pid_t pid;
	char c;

	pid = fork();
	if (pid == 0)
		run_tracee(f->sh, f->loops_c);
	__atomic_store_n(&f->pid, pid, __ATOMIC_RELEASE);
	/* Alive until P is done: a thread of P when the prctl runs. */
	return read(f->hold[0], &c, 1) == 1 ? NULL : (void *)1;
}

static __noreturn void
run_tracer(struct shared *sh, enum prctl_layer layer, bool tsync,
	   enum order order, unsigned int loops_p, unsigned int loops_c)
{
	struct forker f = { .sh = sh, .loops_c = loops_c };
	pthread_t thread;
	pid_t pid;

	if (setgroups(0, NULL) || setresgid(USER_ID, USER_ID, USER_ID) ||
	    setresuid(USER_ID, USER_ID, USER_ID))
		SETUP_FAILED(sh);
	if (layer == LAYER_NETWORK && prctl(PR_SET_NOSUID, 1, 0, 0, 0))
		SETUP_FAILED(sh);
	/*
	 * The uid change cleared it.  TRACEME does not look at it, but no
	 * refusal in these tries is to come from anything but the prctl.
	 */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		SETUP_FAILED(sh);

	if (tsync) {
		if (pipe(f.hold) ||
		    pthread_create(&thread, NULL, fork_tracee, &f))
			SETUP_FAILED(sh);
		while (!(pid = __atomic_load_n(&f.pid, __ATOMIC_ACQUIRE)))
			;
	} else {
		pid = fork();
		if (pid == 0)
			run_tracee(sh, loops_c);
	}
	if (pid < 0)
		SETUP_FAILED(sh);

	switch (order) {
	case NO_PRCTL:
		set_flag(&sh->go);
		break;
	case PRCTL_FIRST:
		call_prctl(sh, layer, tsync);
		set_flag(&sh->go);
		break;
	case TRACEME_FIRST:
		set_flag(&sh->go);
		if (!wait_flag(&sh->traceme_done))
			SETUP_FAILED(sh);
		call_prctl(sh, layer, tsync);
		break;
	case RACE:
		if (!wait_flag(&sh->ready))
			SETUP_FAILED(sh);
		set_flag(&sh->go);
		delay(loops_p);
		call_prctl(sh, layer, tsync);
		break;
	}
	/* Children of either thread are P's to reap. */
	if (!reap(pid))
		SETUP_FAILED(sh);
	if (tsync && (write(f.hold[1], "", 1) != 1 ||
		      pthread_join(thread, NULL)))
		SETUP_FAILED(sh);
	_exit(0);
}

/* One try in a fresh P and C; the results are left in *sh. */
static void try_once(struct __test_metadata *const _metadata,
		     struct shared *sh, enum prctl_layer layer, bool tsync,
		     enum order order, unsigned int loops_p,
		     unsigned int loops_c)
{
	pid_t pid;

	memset(sh, 0, sizeof(*sh));
	/* 1: "not called" */
	sh->traceme_ret = 1;
	sh->prctl_ret = 1;
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		run_tracer(sh, layer, tsync, order, loops_p, loops_c);
	ASSERT_EQ(0, wait_child(pid));
	ASSERT_EQ(0, sh->setup_line)
	{
		TH_LOG("setup failed at line %d", sh->setup_line);
	}
}

FIXTURE(race)
{
	struct shared *sh;
};

FIXTURE_VARIANT(race)
{
	enum prctl_layer layer;
	bool tsync;
};

FIXTURE_VARIANT_ADD(race, network)
{
	.layer = LAYER_NETWORK,
};

/* Layer 1 holds tasklist_lock across its check and set: the same claim. */
FIXTURE_VARIANT_ADD(race, nosuid)
{
	.layer = LAYER_NOSUID,
};

FIXTURE_VARIANT_ADD(race, network_tsync)
{
	.layer = LAYER_NETWORK,
	.tsync = true,
};

FIXTURE_VARIANT_ADD(race, nosuid_tsync)
{
	.layer = LAYER_NOSUID,
	.tsync = true,
};

FIXTURE_SETUP(race)
{
	self->sh = MAP_FAILED;
	if (prctl(PR_GET_NOSUID, 0, 0, 0, 0) < 0 && errno == EINVAL)
		SKIP(return, "kernel without PR_SET_NOSUID");
	if (variant->layer == LAYER_NETWORK)
		REQUIRE_NETWORK_PRCTL();
	if (geteuid() != 0)
		SKIP(return, "must run as root to change to the test user");
	/* As root the call fails either way: EINVAL only without TSYNC. */
	if (variant->tsync &&
	    prctl(variant->layer == LAYER_NETWORK ? PR_SET_NETWORK : PR_SET_NOSUID,
		  1, 1, 0, 0) && errno == EINVAL)
		SKIP(return, "kernel without the TSYNC flag");
	self->sh = mmap(NULL, sizeof(*self->sh), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->sh);
}

FIXTURE_TEARDOWN(race)
{
	if (self->sh != MAP_FAILED)
		munmap(self->sh, sizeof(*self->sh));
}

/*
 * The orders that do not depend on timing, one try each: TRACEME works at
 * all here (Yama, dumpable), the prctl refuses an existing tracee, and
 * TRACEME refuses a parent already gated.
 */
TEST_F(race, sequential)
{
	struct shared *sh = self->sh;

	/* Control: without the prctl, TRACEME succeeds. */
	try_once(_metadata, sh, variant->layer, variant->tsync, NO_PRCTL, 0, 0);
	EXPECT_EQ(0, sh->traceme_ret)
	{
		TH_LOG("TRACEME alone: %s", strerror(sh->traceme_errno));
	}

	try_once(_metadata, sh, variant->layer, variant->tsync, TRACEME_FIRST,
		 0, 0);
	EXPECT_EQ(0, sh->traceme_ret);
	EXPECT_EQ(-1, sh->prctl_ret);
	EXPECT_EQ(EBUSY, sh->prctl_errno);

	try_once(_metadata, sh, variant->layer, variant->tsync, PRCTL_FIRST,
		 0, 0);
	EXPECT_EQ(0, sh->prctl_ret)
	{
		TH_LOG("prctl: %s", strerror(sh->prctl_errno));
	}
	EXPECT_EQ(-1, sh->traceme_ret);
	EXPECT_EQ(EPERM, sh->traceme_errno);
}

/*
 * Where the two calls meet depends on the CPUs and on the emulator: no fixed
 * delay is right everywhere.  So the delay follows the outcome: the side
 * that won the last try is held back in the next one, by a step that
 * doubles while the same side keeps winning and halves when the winner
 * changes.  That finds the point where either may win in a few tries and
 * then stays around it; a small random part spreads the tries over the
 * window there.  The delay is in empty loops; positive: P waits, else C.
 */
#define STEP_MIN 8
#define STEP_MAX (256 * 1024)
/* A few ms natively, some more under TCG: 300 tries stay well in time. */
#define BIAS_MAX (4 * 1024 * 1024)
#define SPREAD 64

struct delays {
	int bias, step, last;	/* last: +1 P won, -1 C won, 0 none yet */
	int bias_min, bias_max;
	unsigned int seed;
};

static void next_delays(struct delays *d, bool prctl_won,
			unsigned int *loops_p, unsigned int *loops_c)
{
	int won = prctl_won ? 1 : -1, loops;

	if (won == d->last && d->step < STEP_MAX)
		d->step *= 2;
	else if (won != d->last && d->step > STEP_MIN)
		d->step /= 2;
	d->last = won;
	d->bias += won * d->step;
	if (d->bias > BIAS_MAX)
		d->bias = BIAS_MAX;
	if (d->bias < -BIAS_MAX)
		d->bias = -BIAS_MAX;
	if (d->bias < d->bias_min)
		d->bias_min = d->bias;
	if (d->bias > d->bias_max)
		d->bias_max = d->bias;
	d->seed = d->seed * 1103515245 + 12345;
	loops = d->bias + (int)((d->seed >> 16) % (2 * SPREAD + 1)) - SPREAD;
	*loops_p = loops > 0 ? loops : 0;
	*loops_c = loops < 0 ? -loops : 0;
}

TEST_F_TIMEOUT(race, race, 120)
{
	int i, traced_first = 0, gated_first = 0, both = 0, other = 0;
	struct delays d = { .step = STEP_MIN * 2, .seed = 1 };
	unsigned int loops_p = 0, loops_c = 0;
	struct shared *sh = self->sh;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs to race");

	for (i = 0; i < RACE_TRIES; i++) {
		try_once(_metadata, sh, variant->layer, variant->tsync, RACE,
			 loops_p, loops_c);
		/* A prctl that returned 0 won, whatever TRACEME did. */
		next_delays(&d, sh->prctl_ret == 0, &loops_p, &loops_c);
		if (sh->traceme_ret == 0 && sh->prctl_ret == -1 &&
		    sh->prctl_errno == EBUSY) {
			traced_first++;
			continue;
		}
		if (sh->prctl_ret == 0 && sh->traceme_ret == -1 &&
		    sh->traceme_errno == EPERM) {
			gated_first++;
			continue;
		}
		/* The one outcome the series exists to rule out. */
		if (sh->prctl_ret == 0 && sh->traceme_ret == 0)
			both++;
		else
			other++;
		if (both + other <= 5)
			TH_LOG("try %d (delay P %u, C %u): prctl %d (%s), TRACEME %d (%s)",
			       i, loops_p, loops_c, sh->prctl_ret,
			       strerror(sh->prctl_errno), sh->traceme_ret,
			       strerror(sh->traceme_errno));
	}
	TH_LOG("%d tries: tracee first (EBUSY) %d, prctl first (EPERM) %d, both succeeded %d, other %d",
	       RACE_TRIES, traced_first, gated_first, both, other);
	/* Where the race was: the delay (empty loops, + for P) moved so far. */
	TH_LOG("delay ranged from %d to %d loops, last %d", d.bias_min,
	       d.bias_max, d.bias);
	EXPECT_EQ(0, both)
	{
		TH_LOG("a gated tracer held an ungated tracee");
	}
	EXPECT_EQ(0, other);
	EXPECT_EQ(RACE_TRIES, traced_first + gated_first);
}

TEST_HARNESS_MAIN
