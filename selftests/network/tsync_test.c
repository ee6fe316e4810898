// SPDX-License-Identifier: GPL-2.0
/*
 * PR_NETWORK_TSYNC: prctl(PR_SET_NETWORK, PR_NETWORK_OFF, PR_NETWORK_TSYNC)
 * closes the gate of every thread of the process, or of none.  A program
 * whose runtime started threads before main() (Go, the JVM, tokio) can
 * then drop its network mid-run, as a single-threaded one can.
 *
 * Each thread tries socket(AF_INET) itself, before the call (the control:
 * it works) and after (EPERM); AF_UNIX keeps working.  Without the flag the
 * same process gets EBUSY.  The race of the other threads' TRACEME against
 * the call is in race_test.c (race.network_tsync).
 */
#define _GNU_SOURCE
#include <linux/vhost.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include "common.h"

#define MAX_THREADS 64

/*
 * Called as root, which is not nosuid: EPERM from a kernel with
 * PR_NETWORK_TSYNC, EINVAL (arg3) from one without; nothing changes.
 */
#define REQUIRE_TSYNC()                                                    \
	do {                                                               \
		if (prctl(PR_SET_NETWORK, PR_NETWORK_OFF, PR_NETWORK_TSYNC, \
			  0, 0) && errno == EINVAL)                        \
			SKIP(return, "kernel without PR_NETWORK_TSYNC");   \
	} while (0)

/* The races: root to become the test user, the call, two CPUs. */
#define REQUIRE_TSYNC_RACE()                                               \
	do {                                                               \
		REQUIRE_NETWORK_PRCTL();                                   \
		if (geteuid() != 0)                                        \
			SKIP(return, "must run as root to change to the test user"); \
		REQUIRE_TSYNC();                                           \
		if (sysconf(_SC_NPROCESSORS_ONLN) < 2)                     \
			SKIP(return, "needs two CPUs to race");            \
	} while (0)

/* 0 or -errno of socket(@family, SOCK_DGRAM), the socket closed. */
static int try_socket(int family)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Counts this process's tasks whose NoNetwork: line says @value. */
static int tasks_gated(int value, int *total)
{
	char path[300], line[128];
	struct dirent *de;
	int n = 0, v;
	DIR *d;
	FILE *f;

	*total = 0;
	d = opendir("/proc/self/task");
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status",
			 de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		(*total)++;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "NoNetwork: %d", &v) == 1 && v == value)
				n++;
		fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

/*
 * Threads that each try AF_INET once started (before) and once released
 * (after).  One in eight spins in user space meanwhile, the others wait in
 * read(): the call must reach both.
 */
struct pool {
	int n, started;
	pthread_t thread[MAX_THREADS];
	int before[MAX_THREADS], after[MAX_THREADS], after_unix[MAX_THREADS];
	int hold[2];
	int stop;
};

static void *pool_thread(void *arg)
{
	struct pool *p = arg;
	int i = __atomic_fetch_add(&p->started, 1, __ATOMIC_ACQ_REL);
	char c;

	p->before[i] = try_socket(AF_INET);
	if (i % 8) {
		if (read(p->hold[0], &c, 1) != 1)
			return (void *)1;
	} else {
		while (!__atomic_load_n(&p->stop, __ATOMIC_RELAXED))
			;
	}
	p->after[i] = try_socket(AF_INET);
	p->after_unix[i] = try_socket(AF_UNIX);
	return NULL;
}

static void pool_start(struct __test_metadata *const _metadata,
		       struct pool *p, int n)
{
	memset(p, 0, sizeof(*p));
	p->n = n;
	ASSERT_EQ(0, pipe2(p->hold, O_CLOEXEC));
	for (int i = 0; i < n; i++)
		ASSERT_EQ(0, pthread_create(&p->thread[i], NULL, pool_thread, p));
	while (__atomic_load_n(&p->started, __ATOMIC_ACQUIRE) < n)
		usleep(1000);
}

static void pool_stop(struct __test_metadata *const _metadata,
		      struct pool *p)
{
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < p->n; i++)
		ASSERT_EQ(1, write(p->hold[1], "", 1));
	for (int i = 0; i < p->n; i++)
		ASSERT_EQ(0, pthread_join(p->thread[i], NULL));
}

static void *close_gate_from_thread(void *arg)
{
	long ret = prctl(PR_SET_NETWORK, PR_NETWORK_OFF, PR_NETWORK_TSYNC, 0, 0);

	return (void *)(ret ? (long)errno : 0L);
}

static void *set_nosuid_from_thread(void *arg)
{
	long ret = prctl(PR_SET_NOSUID, 1, PR_NOSUID_TSYNC, 0, 0);

	return (void *)(ret ? (long)errno : 0L);
}

/* Runs @fn in a new thread, as a Go program's goroutine would; its errno. */
static long in_thread(void *(*fn)(void *))
{
	pthread_t t;
	void *ret;

	if (pthread_create(&t, NULL, fn, NULL) || pthread_join(t, &ret))
		return -1;
	return (long)ret;
}

FIXTURE(tsync)
{
	struct pool pool;
};

FIXTURE_VARIANT(tsync)
{
	int threads;
	bool nosuid_first;	/* nosuid before the threads, else with them */
};

/* clang-format off */
FIXTURE_VARIANT_ADD(tsync, threads_1) {
	.threads = 1, .nosuid_first = true,
};

FIXTURE_VARIANT_ADD(tsync, threads_8) {
	.threads = 8, .nosuid_first = true,
};

FIXTURE_VARIANT_ADD(tsync, threads_64) {
	.threads = MAX_THREADS, .nosuid_first = true,
};

/*
 * Both prctls in a process that had 64 threads before it gave up anything:
 * one call each.
 */
FIXTURE_VARIANT_ADD(tsync, threads_64_both_calls) {
	.threads = MAX_THREADS, .nosuid_first = false,
};

/* clang-format on */

FIXTURE_SETUP(tsync)
{
	REQUIRE_NETWORK_PRCTL();
	if (geteuid() != 0)
		SKIP(return, "must run as root to change to the test user");
	REQUIRE_TSYNC();
	drop_to_user(_metadata);
	if (variant->nosuid_first)
		set_nosuid(_metadata);
	pool_start(_metadata, &self->pool, variant->threads);
}

FIXTURE_TEARDOWN(tsync)
{
}

TEST_F(tsync, closes_every_thread)
{
	struct pool *p = &self->pool;
	int total, gated;

	if (!variant->nosuid_first) {
		/* The gate needs nosuid on every thread first. */
		ASSERT_EQ(EPERM, in_thread(close_gate_from_thread));
		ASSERT_EQ(0, in_thread(set_nosuid_from_thread));
	}
	/* Control: without the flag, the same process is refused. */
	ASSERT_EQ(-1, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0));
	ASSERT_EQ(EBUSY, errno);
	ASSERT_EQ(0, try_socket(AF_INET));

	ASSERT_EQ(0, in_thread(close_gate_from_thread));
	gated = tasks_gated(1, &total);
	EXPECT_EQ(total, gated)
		TH_LOG("%d of %d tasks behind the gate", gated, total);
	EXPECT_EQ(PR_NETWORK_OFF, prctl(PR_GET_NETWORK, 0, 0, 0, 0));
	EXPECT_EQ(-EPERM, try_socket(AF_INET));
	pool_stop(_metadata, p);
	for (int i = 0; i < p->n; i++) {
		EXPECT_EQ(0, p->before[i]);
		EXPECT_EQ(-EPERM, p->after[i])
			TH_LOG("thread %d: socket(AF_INET) behind the gate: %s",
			       i, p->after[i] ? strerror(-p->after[i]) : "made");
		EXPECT_EQ(0, p->after_unix[i]);
	}
}

/*
 * A thread that ptraces a task would keep an ungated tracee: EBUSY for
 * all, no gate closed; once it detached, the same call succeeds.
 */
struct tracer {
	pid_t tracee;
	int step[2], done[2];
};

static void *tracer_thread(void *arg)
{
	struct tracer *t = arg;
	int status;
	char c = 0;

	if (read(t->step[0], &c, 1) != 1)
		return (void *)1;
	c = ptrace(PTRACE_SEIZE, t->tracee, 0, 0) ? 1 : 0;
	if (write(t->done[1], &c, 1) != 1 || read(t->step[0], &c, 1) != 1)
		return (void *)1;
	c = ptrace(PTRACE_INTERRUPT, t->tracee, 0, 0) ||
	    waitpid(t->tracee, &status, __WALL) != t->tracee ||
	    ptrace(PTRACE_DETACH, t->tracee, 0, 0);
	if (write(t->done[1], &c, 1) != 1)
		return (void *)1;
	/*
	 * Stay, blocked in read(), until the test is done: the control's
	 * PR_NETWORK_TSYNC must reach this thread there.  An exiting thread
	 * is skipped by the kernel (it never returns to user space) while it
	 * still shows in /proc/self/task, and the control would count it.
	 */
	read(t->step[0], &c, 1);
	return NULL;
}

static int tracer_step(struct tracer *t)
{
	char c = 1;

	if (write(t->step[1], "", 1) != 1 || read(t->done[0], &c, 1) != 1)
		return -1;
	return c;
}

TEST(tracer_thread_busy)
{
	int hold[2], status, total, gated;
	struct tracer t;
	pthread_t thread;
	char c;

	REQUIRE_NETWORK_PRCTL();
	if (geteuid() != 0)
		SKIP(return, "must run as root to change to the test user");
	REQUIRE_TSYNC();
	become_user(_metadata);
	ASSERT_EQ(0, pipe2(hold, O_CLOEXEC));
	t.tracee = fork();
	ASSERT_LE(0, t.tracee);
	if (t.tracee == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		_exit(read(hold[0], &c, 1) == 1 ? 0 : 1);
	}
	ASSERT_EQ(0, pipe2(t.step, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(t.done, O_CLOEXEC));
	ASSERT_EQ(0, pthread_create(&thread, NULL, tracer_thread, &t));
	ASSERT_EQ(0, tracer_step(&t))
		TH_LOG("the thread could not attach: the test is broken");

	ASSERT_EQ(-1, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, PR_NETWORK_TSYNC,
			    0, 0));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(0, tasks_gated(1, &total));
	EXPECT_EQ(0, try_socket(AF_INET));

	/* Control: detached, the same call closes every gate. */
	ASSERT_EQ(0, tracer_step(&t));
	ASSERT_EQ(0, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, PR_NETWORK_TSYNC,
			   0, 0));
	gated = tasks_gated(1, &total);
	EXPECT_EQ(total, gated);
	EXPECT_EQ(2, total);	/* the thread was there */
	ASSERT_EQ(1, write(t.step[1], "", 1));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(1, write(hold[1], "", 1));
	ASSERT_EQ(t.tracee, waitpid(t.tracee, &status, 0));
}

/*
 * Threads made and joined in a tight loop while the gate closes: every
 * thread that runs user code once the call has returned is behind the
 * gate, whenever it was made.  200 fresh processes, on two CPUs.
 */
#define RACE_TRIES 200

static int churn_stop, call_returned, open_after_call;

static void check_after_call(void)
{
	if (__atomic_load_n(&call_returned, __ATOMIC_ACQUIRE) &&
	    try_socket(AF_INET) != -EPERM)
		__atomic_fetch_add(&open_after_call, 1, __ATOMIC_RELAXED);
}

static void *churned(void *arg)
{
	check_after_call();
	return arg;
}

static void *churn(void *arg)
{
	pthread_t t;

	while (!__atomic_load_n(&churn_stop, __ATOMIC_RELAXED)) {
		if (!pthread_create(&t, NULL, churned, NULL))
			pthread_join(t, NULL);
		check_after_call();
	}
	return NULL;
}

static __noreturn void churn_try(unsigned int seed)
{
	pthread_t churner;
	int err = 0;

	if (pthread_create(&churner, NULL, churn, NULL))
		_exit(201);
	usleep(seed % 200);
	if (prctl(PR_SET_NETWORK, PR_NETWORK_OFF, PR_NETWORK_TSYNC, 0, 0))
		err = errno;
	else
		__atomic_store_n(&call_returned, 1, __ATOMIC_RELEASE);
	usleep(1000);
	__atomic_store_n(&churn_stop, 1, __ATOMIC_RELAXED);
	if (pthread_join(churner, NULL))
		_exit(202);
	if (err)
		_exit(err);
	_exit(open_after_call ? 100 : 0);
}

/*
 * The race tests below make 200 tries, each a fresh process: on the debug
 * kernel of a loaded 2-core TCG host that took more than the harness's
 * 30 s default per test (2026-12-06).  A deadline ends a broken run; it
 * must not measure a slow one, so it is 10 minutes here.
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 600

TEST(race_thread_churn)
{
	int status, code, fails = 0;
	pid_t pid;

	REQUIRE_TSYNC_RACE();
	become_user(_metadata);
	for (int i = 0; i < RACE_TRIES; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			churn_try(i * 2654435761u);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		code = WEXITSTATUS(status);
		if (code && fails++ < 5)
			TH_LOG("try %d: %s", i, code == 100 ?
			       "a thread made a socket after the call" :
			       strerror(code));
	}
	EXPECT_EQ(0, fails);
}

/*
 * A vhost device's worker is a thread of its owner's process, with no file
 * table, that never returns to user space.  It makes the calls without
 * the flag fail with EBUSY (it is another thread); with the flag it is
 * left alone, as io_uring's workers are (the device is refused behind the
 * gate, and one opened before is documented).
 */
#define VHOST_VSOCK "/dev/vhost-vsock"

TEST(vhost_worker)
{
	int fd, before, total;

	REQUIRE_NETWORK_PRCTL();
	if (geteuid() != 0)
		SKIP(return, "must run as root to change to the test user");
	REQUIRE_TSYNC();
	if (access(VHOST_VSOCK, F_OK))
		SKIP(return, "kernel without CONFIG_VHOST_VSOCK (no " VHOST_VSOCK ")");
	ASSERT_EQ(0, chmod(VHOST_VSOCK, 0666));
	drop_to_user(_metadata);
	tasks_gated(0, &before);
	fd = open(VHOST_VSOCK, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, VHOST_SET_OWNER));
	tasks_gated(0, &total);
	ASSERT_EQ(before + 1, total)
		TH_LOG("no vhost worker thread: nothing was tested");

	/* Control: without the flag, the worker is another thread. */
	ASSERT_EQ(-1, prctl(PR_SET_NOSUID, 1, 0, 0, 0));
	ASSERT_EQ(EBUSY, errno);
	ASSERT_EQ(0, prctl(PR_SET_NOSUID, 1, PR_NOSUID_TSYNC, 0, 0));
	ASSERT_EQ(1, prctl(PR_GET_NOSUID, 0, 0, 0, 0));
	ASSERT_EQ(-1, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0));
	ASSERT_EQ(EBUSY, errno);
	ASSERT_EQ(0, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, PR_NETWORK_TSYNC,
			   0, 0));
	EXPECT_EQ(-EPERM, try_socket(AF_INET));
	close(fd);
}

/*
 * A thread makes a process on the shared file table (CLONE_FILES), then
 * leaves that table (unshare), while another thread closes every gate.
 * The process is not gated, and what it opens lands in the gated threads'
 * table: the call must see it, whichever thread made it and whenever,
 * and fail with EBUSY.  Afterwards the process opens an AF_INET socket
 * and says which descriptor: if the call returned 0, that descriptor must
 * not be a socket in the caller's table.  200 fresh processes on 2 CPUs;
 * the control is the same process made before the call (EBUSY).
 */
struct sharer {
	int go;
	unsigned int delay;
	pid_t pid;
	int cmd[2], report[2];
};

static int sharer_main(void *arg)
{
	struct sharer *sh = arg;
	char c;
	int fd;

	if (read(sh->cmd[0], &c, 1) != 1)
		return 1;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (write(sh->report[1], &fd, sizeof(fd)) != sizeof(fd))
		return 1;
	return read(sh->cmd[0], &c, 1) == 1 ? 0 : 1;
}

static void *make_sharer(void *arg)
{
	const size_t stack_size = 64 * 1024;
	struct sharer *sh = arg;
	unsigned int i;
	char *stack;

	stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return NULL;
	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		;
	/* "+m": i stays in memory, so the empty loop is not optimised out. */
	for (i = 0; i < sh->delay; i++)
		__asm__ __volatile__("" : "+m" (i));
	sh->pid = clone(sharer_main, stack + stack_size,
			CLONE_FILES | SIGCHLD, sh);
	unshare(CLONE_FILES);
	return NULL;
}

/* Exit code: 0 ok (EBUSY, or 0 and no ungated socket), 100 a hole. */
static __noreturn void files_sharer_try(unsigned int delay)
{
	struct sharer sh = { .delay = delay };
	pthread_t t;
	int ret, fd = -1, type = 0, err = 0;
	socklen_t len = sizeof(type);

	if (pipe(sh.cmd) || pipe(sh.report) ||
	    pthread_create(&t, NULL, make_sharer, &sh))
		_exit(201);
	__atomic_store_n(&sh.go, 1, __ATOMIC_RELEASE);
	ret = prctl(PR_SET_NETWORK, PR_NETWORK_OFF, PR_NETWORK_TSYNC, 0, 0);
	if (ret)
		err = errno;
	pthread_join(t, NULL);
	if (sh.pid <= 0)
		_exit(202);
	if (write(sh.cmd[1], "", 1) != 1 ||
	    read(sh.report[0], &fd, sizeof(fd)) != sizeof(fd))
		_exit(203);
	if (ret && err != EBUSY)
		_exit(err);
	if (!ret && fd >= 0 &&
	    !getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len))
		_exit(100);	/* an ungated process's socket, in our table */
	write(sh.cmd[1], "", 1);
	waitpid(sh.pid, NULL, __WALL);
	_exit(ret ? 0 : 50);
}

TEST(race_files_sharer)
{
	int status, code, holes = 0, other = 0, busy = 0, closed = 0;
	pid_t pid;

	REQUIRE_TSYNC_RACE();
	become_user(_metadata);
	for (int i = 0; i < RACE_TRIES; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		/* Spread over the call: the sharer made before it, or after. */
		if (pid == 0)
			files_sharer_try((i * 2654435761u) % 4000);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		code = WEXITSTATUS(status);
		if (code == 0)
			busy++;
		else if (code == 50)
			closed++;
		else if (code == 100)
			holes++;
		else if (other++ < 5)
			TH_LOG("try %d: exit %d", i, code);
	}
	TH_LOG("%d tries: EBUSY %d, gate closed with the sharer made after it %d",
	       RACE_TRIES, busy, closed);
	EXPECT_EQ(0, holes)
		TH_LOG("an ungated process put a socket in a gated table");
	EXPECT_EQ(0, other);
}

/*
 * The sharing check counts the threads that point at the file table and
 * compares the count with the table's reference count: equal means no
 * other process holds it.  A thread that exits between the two takes its
 * reference out after it was counted, and a sharing process's reference
 * would then look like the thread's.  Here P shares the table all along
 * (CLONE_FILES) while thread X exits as every gate closes: the call must
 * fail with EBUSY every time.  Control: the same without P closes the gate.
 */
struct exit_race {
	int go;
	unsigned int delay;
};

static void *exit_when_told(void *arg)
{
	struct exit_race *er = arg;
	unsigned int i;

	while (!__atomic_load_n(&er->go, __ATOMIC_ACQUIRE))
		;
	for (i = 0; i < er->delay; i++)
		__asm__ __volatile__("" : "+m" (i));
	syscall(__NR_exit, 0);
	return NULL;
}

static void *block_forever(void *arg)
{
	char c;

	return (void *)read((int)(long)arg, &c, 1);
}

static int sleep_until_killed(void *arg)
{
	for (;;)
		pause();
	return 0;
}

/* Exit code: 0 EBUSY, 50 the gate closed, 100 closed beside P, else a failure. */
static __noreturn void exit_race_try(unsigned int delay, bool sharer)
{
	const size_t stack_size = 64 * 1024;
	struct exit_race er = { .delay = delay };
	int hold[2], ret, err = 0;
	pid_t p = 0;
	pthread_t t;
	char *stack;

	if (pipe(hold))
		_exit(201);
	if (sharer) {
		stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (stack == MAP_FAILED)
			_exit(202);
		p = clone(sleep_until_killed, stack + stack_size,
			  CLONE_FILES | SIGCHLD, NULL);
		if (p < 0)
			_exit(203);
	}
	for (int i = 0; i < 8; i++)
		if (pthread_create(&t, NULL, block_forever, (void *)(long)hold[0]))
			_exit(204);
	if (pthread_create(&t, NULL, exit_when_told, &er))
		_exit(205);
	__atomic_store_n(&er.go, 1, __ATOMIC_RELEASE);
	ret = prctl(PR_SET_NETWORK, PR_NETWORK_OFF, PR_NETWORK_TSYNC, 0, 0);
	if (ret)
		err = errno;
	if (p > 0) {
		kill(p, SIGKILL);
		waitpid(p, NULL, __WALL);
	}
	if (ret)
		_exit(err == EBUSY ? 0 : err);
	_exit(sharer ? 100 : 50);
}

static void exit_race(struct __test_metadata *const _metadata, bool sharer,
		      int *busy, int *closed, int *holes)
{
	int status, code;
	pid_t pid;

	*busy = *closed = *holes = 0;
	for (int i = 0; i < RACE_TRIES; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			if (prctl(PR_SET_NOSUID, 1, 0, 0, 0))
				_exit(210);
			exit_race_try((i * 2654435761u) % 20000, sharer);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		code = WEXITSTATUS(status);
		if (code == 0)
			(*busy)++;
		else if (code == 50)
			(*closed)++;
		else if (code == 100)
			(*holes)++;
		else
			ASSERT_EQ(0, code);
	}
}

TEST(race_exiting_thread)
{
	int busy, closed, holes;

	REQUIRE_TSYNC_RACE();
	become_user(_metadata);
	/* Control: no other process on the table, the gate closes. */
	exit_race(_metadata, false, &busy, &closed, &holes);
	TH_LOG("%d tries without a sharer: closed %d, EBUSY %d",
	       RACE_TRIES, closed, busy);
	EXPECT_LT(0, closed);
	exit_race(_metadata, true, &busy, &closed, &holes);
	TH_LOG("%d tries with a process on the table: EBUSY %d, closed %d",
	       RACE_TRIES, busy, holes);
	EXPECT_EQ(0, holes)
		TH_LOG("the gate closed while another process held the table");
}

TEST_HARNESS_MAIN
