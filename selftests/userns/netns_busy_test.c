// SPDX-License-Identifier: GPL-2.0
/*
 * A nosuid unshare(CLONE_NEWNET) is refused while another task shares the
 * caller's memory.
 *
 * A nosuid task may move itself into a new network namespace without
 * CAP_SYS_ADMIN (see nosuid_netns_test.c), to cut itself off the network.
 * The namespace belongs to the task, the memory to everything that shares
 * it: another thread, a CLONE_VM child, an io-wq worker or the SQPOLL
 * thread of the caller's io_uring stays in the old namespace and can be
 * made to work there for the caller, through shared memory or an io_uring
 * request.  The sandbox would be cut off in appearance only.  So, without
 * CAP_SYS_ADMIN, unshare(CLONE_NEWNET) fails with EBUSY while such a task
 * is alive and leaves the caller's namespace alone; a program unshares
 * first and starts its threads afterwards, in the new namespace.
 *
 * The io_uring threads are the easy ones to miss: io-wq workers are made
 * on demand with the nsproxy of the task that queued the work, and they
 * belong to the task, not to the ring they were made for.  They outlive
 * that ring: the last idle worker of a task stays as long as the task has
 * any ring open (6.x keeps it until the task exits; 7.x lets it go with the
 * task's last ring, IO_WQ_BIT_EXIT_ON_IDLE).  An SQPOLL thread lives as
 * long as its ring.
 *
 * Every case runs in a child that becomes uid 1000 and nosuid before it
 * makes any other task (PR_SET_NOSUID itself wants the caller alone) and
 * reports through a shared mapping.  Each refusal has a control in which
 * the same process once alone, or a process that never had company,
 * succeeds: a kernel without the rule fails the test (no EBUSY), and so
 * does a broken test (the control fails, or the other task was never
 * there).  Root is not subject to the rule: iowq_worker_root shows that,
 * and what the rule prevents.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <linux/io_uring.h>
#include <linux/sockios.h>
#include <pthread.h>
#include <sys/mman.h>

#include "common.h"

#ifndef SIOCGSKNS
#define SIOCGSKNS 0x894C
#endif

#define IO_URING_SYSCTL "/proc/sys/kernel/io_uring_disabled"
#define MAX_NOSUID_NETNS_SYSCTL "/proc/sys/user/max_nosuid_net_namespaces"

/* The names the kernel gives io_uring threads: "iou-wrk-PID", "iou-sqp-PID". */
#define IOWQ_WORKER "iou-wrk-"
#define SQPOLL_THREAD "iou-sqp-"

/* Bound on any wait: a completion, a thread going away. */
#define WAIT_S 10.0

/*
 * The controls create a few namespaces as uid 1000, and the teardown of
 * those of earlier test programs runs late: raise the per-user bound on
 * nosuid namespaces (netns_limit_test tests it) so that their lag cannot
 * turn into a spurious ENOSPC here, and put it back when the program ends.
 */
static int saved_max_nosuid_netns = -1;
static pid_t sysctl_owner;

static void __attribute__((constructor)) raise_nosuid_netns_limit(void)
{
	if (geteuid())
		return;
	saved_max_nosuid_netns = read_sysctl(MAX_NOSUID_NETNS_SYSCTL);
	if (saved_max_nosuid_netns >= 0 &&
	    !write_sysctl(MAX_NOSUID_NETNS_SYSCTL, 10000))
		sysctl_owner = getpid();
}

static void __attribute__((destructor)) restore_nosuid_netns_limit(void)
{
	if (sysctl_owner && getpid() == sysctl_owner)
		write_sysctl(MAX_NOSUID_NETNS_SYSCTL, saved_max_nosuid_netns);
}

/*
 * A minimal io_uring (raw system calls: the guest has no liburing), one
 * request at a time.
 */
struct ring {
	int fd;
	void *sq, *cq;
	size_t sq_size, cq_size, sqes_size;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static void *map_ring(struct ring *r, size_t size, off_t offset)
{
	return mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, r->fd, offset);
}

/* Returns 0 or -errno of io_uring_setup() or of a mapping. */
static int ring_init(struct ring *r, unsigned int flags)
{
	struct io_uring_params p = {
		.flags = flags,
		/* An idle SQPOLL thread goes to sleep, it does not exit. */
		.sq_thread_idle = 1000,
	};

	r->sq = MAP_FAILED;
	r->cq = MAP_FAILED;
	r->sqes = MAP_FAILED;
	r->fd = syscall(__NR_io_uring_setup, 8, &p);
	if (r->fd < 0)
		return -errno;
	r->sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	r->cq_size = p.cq_off.cqes +
		     p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		if (r->cq_size > r->sq_size)
			r->sq_size = r->cq_size;
		r->cq_size = r->sq_size;
	}
	r->sq = map_ring(r, r->sq_size, IORING_OFF_SQ_RING);
	if (r->sq == MAP_FAILED)
		return -errno;
	if (p.features & IORING_FEAT_SINGLE_MMAP)
		r->cq = r->sq;
	else
		r->cq = map_ring(r, r->cq_size, IORING_OFF_CQ_RING);
	if (r->cq == MAP_FAILED)
		return -errno;
	r->sqes_size = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sqes = map_ring(r, r->sqes_size, IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		return -errno;
	r->sq_tail = r->sq + p.sq_off.tail;
	r->sq_mask = r->sq + p.sq_off.ring_mask;
	r->sq_array = r->sq + p.sq_off.array;
	r->cq_head = r->cq + p.cq_off.head;
	r->cq_tail = r->cq + p.cq_off.tail;
	r->cq_mask = r->cq + p.cq_off.ring_mask;
	r->cqes = r->cq + p.cq_off.cqes;
	return 0;
}

/*
 * Closes the ring for good: the mappings hold the file as much as the fd
 * does.
 */
static void ring_exit(struct ring *r)
{
	if (r->sqes != MAP_FAILED)
		munmap(r->sqes, r->sqes_size);
	if (r->cq != MAP_FAILED && r->cq != r->sq)
		munmap(r->cq, r->cq_size);
	if (r->sq != MAP_FAILED)
		munmap(r->sq, r->sq_size);
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->sq = MAP_FAILED;
	r->cq = MAP_FAILED;
	r->sqes = MAP_FAILED;
}

/*
 * Submits @sqe and reaps its completion, whose result goes to @res.
 * Returns 0, -errno of io_uring_enter(), or -ETIMEDOUT.
 */
static int ring_run(struct ring *r, const struct io_uring_sqe *sqe, int *res)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask, head;
	double deadline = now() + WAIT_S;
	long ret;

	r->sqes[idx] = *sqe;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	ret = syscall(__NR_io_uring_enter, r->fd, 1, 0, 0, NULL, 0);
	if (ret < 0)
		return -errno;
	if (ret != 1)
		return -EPROTO;
	head = *r->cq_head;
	while (__atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) == head) {
		if (now() > deadline)
			return -ETIMEDOUT;
		/* Runs any task work a completion might wait for. */
		syscall(__NR_io_uring_enter, r->fd, 0, 0,
			IORING_ENTER_GETEVENTS, NULL, 0);
		usleep(1000);
	}
	*res = r->cqes[head & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Returns NULL if uid 1000 may use io_uring here, else why not.  Only a
 * missing or disabled io_uring is a reason to skip: any other failure of
 * io_uring_setup() is the test's (the child reports it).
 */
static const char *io_uring_missing(void)
{
	static char why[96];
	int disabled = read_sysctl(IO_URING_SYSCTL);

	/* 1 leaves io_uring to CAP_SYS_ADMIN and kernel.io_uring_group. */
	if (disabled > 0) {
		snprintf(why, sizeof(why),
			 "io_uring disabled for users: kernel.io_uring_disabled=%d",
			 disabled);
		return why;
	}
	/* NULL parameters: EFAULT if io_uring is there, nothing is set up. */
	if (syscall(__NR_io_uring_setup, 1, NULL) < 0 && errno == ENOSYS)
		return "kernel without io_uring (CONFIG_IO_URING=n)";
	return NULL;
}

/*
 * Counts the entries of /proc/self/task, or only the tasks whose name
 * begins with @prefix; -1 if the directory cannot be read.
 */
static int count_tasks(const char *prefix)
{
	char path[300], comm[32] = {};
	struct dirent *de;
	DIR *dir;
	int fd, n = 0;
	ssize_t len;

	dir = opendir("/proc/self/task");
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		if (prefix) {
			snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
				 de->d_name);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;	/* gone meanwhile */
			len = read(fd, comm, sizeof(comm) - 1);
			close(fd);
			if (len <= 0)
				continue;
			comm[len] = '\0';
			if (strncmp(comm, prefix, strlen(prefix)))
				continue;
		}
		n++;
	}
	closedir(dir);
	return n;
}

/* One unshare(CLONE_NEWNET) and what was around it. */
struct attempt {
	int tasks;	/* entries of /proc/self/task just before */
	int io_threads;	/* of those, the io_uring threads looked for */
	int err;	/* errno of unshare(), or 0 */
	ino_t before;	/* the caller's netns before and after */
	ino_t after;
};

static void try_unshare(struct attempt *a, const char *io_thread)
{
	a->io_threads = io_thread ? count_tasks(io_thread) : 0;
	a->tasks = count_tasks(NULL);
	a->before = netns_ino();
	a->err = unshare(CLONE_NEWNET) ? errno : 0;
	a->after = netns_ino();
}

/* What a child saw; it lives in a shared mapping. */
struct outcome {
	const char *step;	/* the child's step that failed, if any */
	int err;		/* its errno */
	bool done;		/* the child got to its end */
	struct attempt with;	/* while another task shares the memory */
	struct attempt without;	/* control: once alone, or always alone */
	int lo_flags;		/* flags of lo in the new netns, or -errno */
	/* iowq_worker_root: a socket made by the worker and one made here. */
	int sock_res;
	ino_t worker_sock_ns;
	ino_t own_sock_ns;
};

/*
 * Records the failed @step of a child; the string is in the program's
 * image, the same address in the test process.
 */
static int fail(struct outcome *o, const char *step, int err)
{
	o->step = step;
	o->err = err;
	return -1;
}

/*
 * Becomes test_uid without groups or capabilities, and nosuid unless
 * @who is ROOT.  No ASSERT here: this runs in a forked child.  The uid
 * change clears the dumpable flag: set it again, for /proc.
 */
static int become(struct outcome *o, enum who who)
{
	if (who == ROOT)
		return 0;
	if (setgroups(0, NULL))
		return fail(o, "setgroups", errno);
	if (setresgid(test_uid, test_uid, test_uid))
		return fail(o, "setresgid", errno);
	if (setresuid(test_uid, test_uid, test_uid))
		return fail(o, "setresuid", errno);
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		return fail(o, "PR_SET_DUMPABLE", errno);
	if (who == NOSUID_USER && prctl(PR_SET_NOSUID, 1, 0, 0, 0))
		return fail(o, "PR_SET_NOSUID", errno);
	return 0;
}

/*
 * Runs @fn as @who in a child and returns what it saw.  The mapping stays
 * until the test process ends.
 */
static struct outcome *run_case(struct __test_metadata *const _metadata,
				enum who who, int (*fn)(struct outcome *))
{
	struct outcome *o;
	int status;
	pid_t pid;

	o = mmap(NULL, sizeof(*o), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, o);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (!become(o, who) && !fn(o))
			o->done = true;
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status))
		TH_LOG("the child was killed by signal %d", WTERMSIG(status));
	ASSERT_EQ(NULL, o->step)
		TH_LOG("child: %s: %s", o->step, strerror(o->err));
	ASSERT_TRUE(o->done);
	return o;
}

static void expect_refused(struct __test_metadata *const _metadata,
			   const struct attempt *a)
{
	EXPECT_EQ(EBUSY, a->err)
		TH_LOG("unshare(CLONE_NEWNET) beside another task: %s",
		       a->err ? strerror(a->err) : "succeeded");
	EXPECT_NE(0, a->before);
	EXPECT_EQ(a->before, a->after)
		TH_LOG("the caller's netns changed all the same");
}

static void expect_unshared(struct __test_metadata *const _metadata,
			    const struct attempt *a)
{
	EXPECT_EQ(0, a->err)
		TH_LOG("control: unshare(CLONE_NEWNET): %s",
		       strerror(a->err));
	EXPECT_NE(0, a->before);
	EXPECT_NE(0, a->after);
	EXPECT_NE(a->before, a->after)
		TH_LOG("control: the netns did not change");
}

/* Waits for a byte on the pipe; the thread or the process then ends. */
static void *wait_in_thread(void *arg)
{
	char c;

	return (void *)(long)read((int)(long)arg, &c, 1);
}

/* Dies with its creator, should the case stop before releasing it. */
static int wait_in_clone(void *arg)
{
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	return read((int)(long)arg, &c, 1) == 1 ? 0 : 1;
}

static int pthread_case(struct outcome *o)
{
	pthread_t thread;
	int hold[2], err;

	if (pipe2(hold, O_CLOEXEC))
		return fail(o, "pipe2", errno);
	err = pthread_create(&thread, NULL, wait_in_thread,
			     (void *)(long)hold[0]);
	if (err)
		return fail(o, "pthread_create", err);
	try_unshare(&o->with, NULL);

	if (write(hold[1], "", 1) != 1)
		return fail(o, "write to the thread", errno);
	err = pthread_join(thread, NULL);
	if (err)
		return fail(o, "pthread_join", err);
	/*
	 * Right away: the thread may still be on the thread list, but it is
	 * exiting (PF_EXITING is set before pthread_join() is woken), can
	 * no longer run user code, and must not count.
	 */
	try_unshare(&o->without, NULL);
	return 0;
}

TEST(pthread_alive)
{
	struct outcome *o;

	REQUIRE_NOSUID();
	REQUIRE_NOSUID_NETNS();
	o = run_case(_metadata, NOSUID_USER, pthread_case);
	ASSERT_EQ(2, o->with.tasks)
		TH_LOG("the thread was not there: the test is broken");
	expect_refused(_metadata, &o->with);
	/* Control: the same process, the thread joined. */
	expect_unshared(_metadata, &o->without);
}

#define CLONE_STACK_SIZE (256 * 1024)

/*
 * A process of its own (not CLONE_THREAD) made with @flags: the unshare
 * while it waits, and again once it is reaped.
 */
static int sibling_case(struct outcome *o, int flags, const char *what)
{
	int hold[2], status;
	char *stack;
	pid_t pid;

	if (pipe2(hold, O_CLOEXEC))
		return fail(o, "pipe2", errno);
	stack = mmap(NULL, CLONE_STACK_SIZE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return fail(o, "mmap of the stack", errno);
	pid = clone(wait_in_clone, stack + CLONE_STACK_SIZE, flags | SIGCHLD,
		    (void *)(long)hold[0]);
	if (pid < 0)
		return fail(o, what, errno);
	try_unshare(&o->with, NULL);

	if (write(hold[1], "", 1) != 1)
		return fail(o, "write to the sibling", errno);
	if (waitpid(pid, &status, 0) != pid)
		return fail(o, "waitpid", errno);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return fail(o, "the sibling failed", EPROTO);
	try_unshare(&o->without, NULL);
	return 0;
}

/* The same memory. */
static int clone_vm_case(struct outcome *o)
{
	return sibling_case(o, CLONE_VM, "clone(CLONE_VM)");
}

TEST(clone_vm_sibling)
{
	struct outcome *o;

	REQUIRE_NOSUID();
	REQUIRE_NOSUID_NETNS();
	o = run_case(_metadata, NOSUID_USER, clone_vm_case);
	/* Not a thread: the rule covers the memory, not the thread group. */
	EXPECT_EQ(1, o->with.tasks);
	expect_refused(_metadata, &o->with);
	/* Control: the same process, the sibling reaped. */
	EXPECT_EQ(1, o->without.tasks);
	expect_unshared(_metadata, &o->without);
}

/* A process that shares only the file table (CLONE_FILES, not CLONE_VM). */
/* Only the file table (CLONE_FILES, not CLONE_VM). */
static int clone_files_case(struct outcome *o)
{
	return sibling_case(o, CLONE_FILES, "clone(CLONE_FILES)");
}

TEST(clone_files_sibling)
{
	struct outcome *o;

	REQUIRE_NOSUID();
	REQUIRE_NOSUID_NETNS();
	o = run_case(_metadata, NOSUID_USER, clone_files_case);
	EXPECT_EQ(1, o->with.tasks);
	expect_refused(_metadata, &o->with);
	/* Control: the same process, the sibling reaped. */
	EXPECT_EQ(1, o->without.tasks);
	expect_unshared(_metadata, &o->without);
}

/*
 * Sets up a ring and has an io-wq worker run a NOP for it: IOSQE_ASYNC
 * skips the inline attempt and queues the request to io-wq, which has
 * no worker yet and makes one.  The ring stays in @r.
 */
static int start_iowq_worker(struct outcome *o, struct ring *r)
{
	const struct io_uring_sqe nop = {
		.opcode = IORING_OP_NOP,
		.flags = IOSQE_ASYNC,
	};
	int err, res = -1;

	err = ring_init(r, 0);
	if (err)
		return fail(o, "io_uring_setup", -err);
	err = ring_run(r, &nop, &res);
	if (err)
		return fail(o, "async NOP", -err);
	if (res)
		return fail(o, "async NOP: result", -res);
	return 0;
}

static int iowq_worker_case(struct outcome *o)
{
	struct ring r;

	if (start_iowq_worker(o, &r))
		return -1;
	try_unshare(&o->with, IOWQ_WORKER);
	return 0;
}

/*
 * The worker was made when the test process had one task: no worker, no
 * test.
 */
static void assert_worker(struct __test_metadata *const _metadata,
			  const struct attempt *a)
{
	ASSERT_LE(1, a->io_threads)
		TH_LOG("no %s* task in /proc/self/task (%d tasks) right before unshare(): %s",
		       IOWQ_WORKER, a->tasks,
		       "the worker is gone, nothing was tested");
	ASSERT_LT(1, a->tasks);
}

TEST(iowq_worker)
{
	const char *why = io_uring_missing();
	struct outcome *o;

	REQUIRE_NOSUID();
	REQUIRE_NOSUID_NETNS();
	if (why)
		SKIP(return, "%s", why);
	o = run_case(_metadata, NOSUID_USER, iowq_worker_case);
	assert_worker(_metadata, &o->with);
	expect_refused(_metadata, &o->with);
}

/*
 * The worker is made for one ring, which is then closed, while the task
 * keeps another ring open.  The worker belongs to the task's io-wq, not to
 * the closed ring: it stays, still in the old netns, and would serve the
 * other ring.  The other ring is what keeps it on every base: on 7.x the
 * task's last ring going away would let the worker exit on its own
 * (IO_WQ_BIT_EXIT_ON_IDLE), at a moment of the scheduler's choosing, and
 * the test would race it (CI saw the worker gone by the unshare once).
 */
static int iowq_worker_ring_closed_case(struct outcome *o)
{
	struct ring r, other;
	int err;

	err = ring_init(&other, 0);
	if (err)
		return fail(o, "io_uring_setup of the ring kept open", -err);
	if (start_iowq_worker(o, &r))
		return -1;
	ring_exit(&r);
	try_unshare(&o->with, IOWQ_WORKER);
	ring_exit(&other);
	return 0;
}

TEST(iowq_worker_after_ring_closed)
{
	const char *why = io_uring_missing();
	struct outcome *o;

	REQUIRE_NOSUID();
	REQUIRE_NOSUID_NETNS();
	if (why)
		SKIP(return, "%s", why);
	o = run_case(_metadata, NOSUID_USER, iowq_worker_ring_closed_case);
	assert_worker(_metadata, &o->with);
	expect_refused(_metadata, &o->with);
}

static int sqpoll_case(struct outcome *o)
{
	double deadline;
	struct ring r;
	int err;

	/* The SQPOLL thread is started by io_uring_setup() itself. */
	err = ring_init(&r, IORING_SETUP_SQPOLL);
	if (err)
		return fail(o, "io_uring_setup(IORING_SETUP_SQPOLL)", -err);
	/* It is there, but takes its name only once it first runs. */
	deadline = now() + WAIT_S;
	while (count_tasks(SQPOLL_THREAD) < 1 && now() < deadline)
		usleep(1000);
	try_unshare(&o->with, SQPOLL_THREAD);

	/*
	 * The thread is stopped once the ring is freed, from a workqueue:
	 * wait until the process is alone again.
	 */
	ring_exit(&r);
	deadline = now() + WAIT_S;
	while (count_tasks(NULL) != 1 && now() < deadline)
		usleep(10000);
	try_unshare(&o->without, SQPOLL_THREAD);
	return 0;
}

/* Unprivileged SQPOLL is allowed since Linux 5.11. */
TEST(sqpoll_thread)
{
	const char *why = io_uring_missing();
	struct outcome *o;

	REQUIRE_NOSUID();
	REQUIRE_NOSUID_NETNS();
	if (why)
		SKIP(return, "%s", why);
	o = run_case(_metadata, NOSUID_USER, sqpoll_case);
	ASSERT_LE(1, o->with.io_threads)
		TH_LOG("no %s* task after io_uring_setup(): the test is broken",
		       SQPOLL_THREAD);
	expect_refused(_metadata, &o->with);

	/* Control: the same process, the ring closed and its thread gone. */
	ASSERT_EQ(1, o->without.tasks)
		TH_LOG("%d tasks %.0f s after closing the SQPOLL ring",
		       o->without.tasks, WAIT_S);
	expect_unshared(_metadata, &o->without);
}

static int ring_without_io_thread_case(struct outcome *o)
{
	const struct io_uring_sqe nop = { .opcode = IORING_OP_NOP };
	struct ring r;
	int err, res = -1;

	err = ring_init(&r, 0);
	if (err)
		return fail(o, "io_uring_setup", -err);
	/* Completed inline, in the caller: no io-wq worker is made. */
	err = ring_run(&r, &nop, &res);
	if (err)
		return fail(o, "NOP", -err);
	if (res)
		return fail(o, "NOP: result", -res);
	try_unshare(&o->without, IOWQ_WORKER);
	return 0;
}

/*
 * Control of iowq_worker and sqpoll_thread: a ring alone is no reason to
 * refuse, the thread is.
 */
TEST(ring_without_io_thread)
{
	const char *why = io_uring_missing();
	struct outcome *o;

	REQUIRE_NOSUID();
	REQUIRE_NOSUID_NETNS();
	if (why)
		SKIP(return, "%s", why);
	o = run_case(_metadata, NOSUID_USER, ring_without_io_thread_case);
	ASSERT_EQ(1, o->without.tasks)
		TH_LOG("an inline NOP left %d tasks", o->without.tasks);
	expect_unshared(_metadata, &o->without);
}

/* Returns the inode of the netns socket @fd belongs to, or 0. */
static ino_t socket_netns(int fd)
{
	struct stat st;
	int nsfd = ioctl(fd, SIOCGSKNS);

	if (nsfd < 0)
		return 0;
	if (fstat(nsfd, &st))
		st.st_ino = 0;
	close(nsfd);
	return st.st_ino;
}

static int iowq_worker_root_case(struct outcome *o)
{
	/* Like socket(AF_INET, SOCK_DGRAM, 0), queued to the worker. */
	const struct io_uring_sqe sock = {
		.opcode = IORING_OP_SOCKET,
		.flags = IOSQE_ASYNC,
		.fd = AF_INET,
		.off = SOCK_DGRAM,
	};
	struct ring r;
	int err, fd;

	if (start_iowq_worker(o, &r))
		return -1;
	try_unshare(&o->with, IOWQ_WORKER);
	if (o->with.err)
		return 0;

	/*
	 * The idle worker takes the request: its socket is made in the
	 * netns the caller just left.
	 */
	err = ring_run(&r, &sock, &o->sock_res);
	if (err)
		return fail(o, "async IORING_OP_SOCKET", -err);
	if (o->sock_res >= 0) {
		o->worker_sock_ns = socket_netns(o->sock_res);
		close(o->sock_res);
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(o, "socket", errno);
	o->own_sock_ns = socket_netns(fd);
	close(fd);
	return 0;
}

/*
 * Control of iowq_worker: with CAP_SYS_ADMIN the rule does not apply, and
 * then the worker left behind still works in the old netns for the caller,
 * which is what the rule keeps a nosuid task from doing.
 */
TEST(iowq_worker_root)
{
	const char *why = io_uring_missing();
	struct outcome *o;

	if (why)
		SKIP(return, "%s", why);
	o = run_case(_metadata, ROOT, iowq_worker_root_case);
	assert_worker(_metadata, &o->with);
	expect_unshared(_metadata, &o->with);
	if (o->with.err)
		return;
	if (o->sock_res == -EINVAL) {
		TH_LOG("no IORING_OP_SOCKET (before 5.19): the leak is not shown");
		return;
	}
	ASSERT_LE(0, o->sock_res)
		TH_LOG("async IORING_OP_SOCKET: %s", strerror(-o->sock_res));
	EXPECT_EQ(o->with.after, o->own_sock_ns);
	EXPECT_EQ(o->with.before, o->worker_sock_ns)
		TH_LOG("the worker's socket is not in the old netns");
}

static int single_threaded_case(struct outcome *o)
{
	try_unshare(&o->without, NULL);
	o->lo_flags = get_if_flags("lo");
	return 0;
}

/* Alone, a nosuid task unshares as before, and gets lo up. */
TEST(single_threaded_ok)
{
	struct outcome *o;

	REQUIRE_NOSUID();
	REQUIRE_NOSUID_NETNS();
	o = run_case(_metadata, NOSUID_USER, single_threaded_case);
	EXPECT_EQ(1, o->without.tasks);
	expect_unshared(_metadata, &o->without);
	ASSERT_LE(0, o->lo_flags)
		TH_LOG("SIOCGIFFLAGS on lo: %s", strerror(-o->lo_flags));
	EXPECT_TRUE(o->lo_flags & IFF_UP);
}

TEST_HARNESS_MAIN
