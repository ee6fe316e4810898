// SPDX-License-Identifier: GPL-2.0
/*
 * A gated task must not take over, or reach into, one that still has the
 * network: that is how RLIMIT_NETWORK-style restrictions used to be
 * escaped.  Every ptrace mode is refused, the read modes included: they
 * guard /proc/PID/fd/N, which reopens the target's files (the pipe it
 * reads commands from) with any access.  Every process
 * here is uid 1000, dumpable and nosuid, so that neither the uid rules nor
 * the nosuid ptrace rule of layer 1 decide: only the network flag differs.
 * Targets allow any tracer (Yama's PR_SET_PTRACER), so that Yama's
 * descendants-only default does not decide either.
 */

#define _GNU_SOURCE
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "common.h"

#ifndef PR_SET_PTRACER_ANY
#define PR_SET_PTRACER_ANY ((unsigned long)-1)
#endif

/* At the same address in every process forked from the test. */
static char scratch[8];

struct target {
	pid_t pid;
	/* Closing it lets the target exit. */
	int release;
	/* A socket of the target's own, to steal with pidfd_getfd(). */
	int sock;
	/* The target's end of the pipe it reads, as numbered in the target. */
	int reads;
};

/* Fork a target, which closes the gate itself if asked. */
static void spawn_target(struct __test_metadata *const _metadata,
			 struct target *t, bool gated)
{
	int ready[2], hold[2];
	char c;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(hold));
	t->pid = fork();
	ASSERT_LE(0, t->pid);
	if (t->pid == 0) {
		int sock = socket(AF_INET, SOCK_DGRAM, 0);

		close(ready[0]);
		close(hold[1]);
		prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
		if (gated &&
		    prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0))
			_exit(1);
		if (write(ready[1], &sock, sizeof(sock)) != sizeof(sock))
			_exit(1);
		/* ptrace stops restart the read. */
		while (read(hold[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(ready[1]);
	t->reads = hold[0];
	close(hold[0]);
	ASSERT_EQ(sizeof(t->sock), read(ready[0], &t->sock, sizeof(t->sock)));
	close(ready[0]);
	t->release = hold[1];
}

static void release_target(struct __test_metadata *const _metadata,
			   struct target *t)
{
	close(t->release);
	EXPECT_EQ(0, wait_child(t->pid));
}

enum access {
	ATTACH,
	SEIZE,
	MEM_WRITE,
	VM_WRITEV,
	VM_READV,
	PIDFD_GETFD,
	FD_PIPE_OPEN,
	CWD_OPEN,
	ENVIRON_READ,
};

/* Try one ptrace-checked access; undo it; 0 or -errno. */
static int try_access(enum access how, const struct target *t)
{
	struct iovec local = { .iov_base = "x", .iov_len = 1 };
	struct iovec remote = { .iov_base = scratch, .iov_len = 1 };
	char path[64];
	int fd, pidfd, status;
	ssize_t n;

	switch (how) {
	case ATTACH:
	case SEIZE:
		if (ptrace(how == ATTACH ? PTRACE_ATTACH : PTRACE_SEIZE,
			   t->pid, 0, 0))
			return -errno;
		if (how == SEIZE)
			ptrace(PTRACE_INTERRUPT, t->pid, 0, 0);
		/* Detaching needs the tracee stopped. */
		if (waitpid(t->pid, &status, __WALL) != t->pid ||
		    ptrace(PTRACE_DETACH, t->pid, 0, 0))
			return -EIO;
		return 0;
	case MEM_WRITE:
		snprintf(path, sizeof(path), "/proc/%d/mem", t->pid);
		fd = open(path, O_RDWR);
		if (fd < 0)
			return -errno;
		n = pwrite(fd, "x", 1, (uintptr_t)scratch);
		close(fd);
		return n == 1 ? 0 : -EIO;
	case VM_WRITEV:
	case VM_READV:
		if (how == VM_WRITEV)
			n = process_vm_writev(t->pid, &local, 1, &remote, 1, 0);
		else
			n = process_vm_readv(t->pid, &remote, 1, &remote, 1, 0);
		return n == 1 ? 0 : -errno;
	case FD_PIPE_OPEN:
		/*
		 * PTRACE_MODE_READ_FSCREDS, then the target's pipe reopened
		 * for writing: a command line for it to run.  Nothing is
		 * written, so that the target keeps waiting.
		 */
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", t->pid,
			 t->reads);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		close(fd);
		return 0;
	case CWD_OPEN:
		snprintf(path, sizeof(path), "/proc/%d/cwd", t->pid);
		fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		close(fd);
		return 0;
	case ENVIRON_READ:
		snprintf(path, sizeof(path), "/proc/%d/environ", t->pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		n = read(fd, path, sizeof(path));
		close(fd);
		return n >= 0 ? 0 : -EIO;
	case PIDFD_GETFD:
		pidfd = syscall(__NR_pidfd_open, t->pid, 0);
		if (pidfd < 0)
			return -EIO;
		fd = syscall(__NR_pidfd_getfd, pidfd, t->sock, 0);
		n = fd < 0 ? -errno : 0;
		close(pidfd);
		if (fd >= 0)
			close(fd);
		return n;
	}
	return -EINVAL;
}

FIXTURE(ptrace) {};

FIXTURE_VARIANT(ptrace)
{
	enum access how;
	/* What a refused access gives. */
	int denied;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(ptrace, attach) {
	.how = ATTACH, .denied = -EPERM,
};

FIXTURE_VARIANT_ADD(ptrace, seize) {
	.how = SEIZE, .denied = -EPERM,
};

/* mm_access() reports a refused ptrace_may_access() as EACCES. */
FIXTURE_VARIANT_ADD(ptrace, mem_write) {
	.how = MEM_WRITE, .denied = -EACCES,
};

FIXTURE_VARIANT_ADD(ptrace, vm_writev) {
	.how = VM_WRITEV, .denied = -EPERM,
};

FIXTURE_VARIANT_ADD(ptrace, vm_readv) {
	.how = VM_READV, .denied = -EPERM,
};

FIXTURE_VARIANT_ADD(ptrace, pidfd_getfd) {
	.how = PIDFD_GETFD, .denied = -EPERM,
};

/* The read modes: a /proc link followed after the check gives EACCES. */
FIXTURE_VARIANT_ADD(ptrace, proc_fd_pipe) {
	.how = FD_PIPE_OPEN, .denied = -EACCES,
};

FIXTURE_VARIANT_ADD(ptrace, proc_cwd) {
	.how = CWD_OPEN, .denied = -EACCES,
};

FIXTURE_VARIANT_ADD(ptrace, proc_environ) {
	.how = ENVIRON_READ, .denied = -EACCES,
};

/* clang-format on */

FIXTURE_SETUP(ptrace)
{
	become_user(_metadata);
}

FIXTURE_TEARDOWN(ptrace)
{
}

/* The tracer's part: control, gate, the same access again. */
static void before_and_after(struct __test_metadata *const _metadata,
			     const FIXTURE_VARIANT(ptrace) *const variant,
			     const struct target *t)
{
	ASSERT_EQ(0, try_access(variant->how, t));
	CLOSE_GATE();
	ASSERT_EQ(variant->denied, try_access(variant->how, t));
}

/* Gated tracer, ungated sibling. */
TEST_F(ptrace, sibling)
{
	struct target t;
	pid_t tracer;

	spawn_target(_metadata, &t, false);
	tracer = fork();
	ASSERT_LE(0, tracer);
	if (tracer == 0) {
		before_and_after(_metadata, variant, &t);
		_exit(0);
	}
	EXPECT_EQ(0, wait_child(tracer));
	release_target(_metadata, &t);
}

/* Gated tracer, its own child forked before the gate closed. */
TEST_F(ptrace, own_child)
{
	struct target t;

	spawn_target(_metadata, &t, false);
	before_and_after(_metadata, variant, &t);
	release_target(_metadata, &t);
}

/* Control: between two gated tasks nothing is to be gained; allowed. */
TEST_F(ptrace, gated_to_gated)
{
	struct target t;
	pid_t tracer;

	REQUIRE_NETWORK_PRCTL();
	spawn_target(_metadata, &t, true);
	tracer = fork();
	ASSERT_LE(0, tracer);
	if (tracer == 0) {
		CLOSE_GATE();
		ASSERT_EQ(0, try_access(variant->how, &t));
		_exit(0);
	}
	EXPECT_EQ(0, wait_child(tracer));
	release_target(_metadata, &t);
}

/* Control: a task that still has the network may trace a gated one. */
TEST_F(ptrace, ungated_to_gated)
{
	struct target t;

	REQUIRE_NETWORK_PRCTL();
	spawn_target(_metadata, &t, true);
	ASSERT_EQ(0, try_access(variant->how, &t));
	release_target(_metadata, &t);
}

/* A child that asks to be traced by its parent when it reads a byte. */
static pid_t traceme_child(int *go)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		read(p[0], &c, 1);
		_exit(ptrace(PTRACE_TRACEME, 0, 0, 0) ? errno : 0);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

/*
 * PTRACE_TRACEME hands the caller to its parent: refused from a child that
 * still has the network toward a gated parent.
 */
TEST(traceme)
{
	int go_before, go_after, go_gated;
	pid_t before, after, gated;

	become_user(_metadata);
	REQUIRE_NETWORK_PRCTL();
	before = traceme_child(&go_before);
	after = traceme_child(&go_after);
	ASSERT_LT(0, before);
	ASSERT_LT(0, after);
	/* Control: the ungated child, the parent not gated yet. */
	ASSERT_EQ(1, write(go_before, "g", 1));
	ASSERT_EQ(0, wait_child(before));

	CLOSE_GATE();
	ASSERT_EQ(1, write(go_after, "g", 1));
	ASSERT_EQ(EPERM, wait_child(after));
	/* Control: a child forked after the gate is gated too. */
	gated = traceme_child(&go_gated);
	ASSERT_LT(0, gated);
	ASSERT_EQ(1, write(go_gated, "g", 1));
	ASSERT_EQ(0, wait_child(gated));
}

/*
 * A tracer that attached before the gate closed: closing it must not leave
 * the gated task in control of a tracee that still has the network.
 * Either the gate refuses to close while it traces one (EBUSY), or the
 * tracee is out of its reach afterwards.
 */
TEST(attached_before_gate)
{
	struct target t;
	int status, ret;

	become_user(_metadata);
	REQUIRE_NETWORK_PRCTL();
	spawn_target(_metadata, &t, false);
	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, t.pid, 0, 0));
	/* Control: full control now. */
	ASSERT_EQ(0, ptrace(PTRACE_INTERRUPT, t.pid, 0, 0));
	ASSERT_EQ(t.pid, waitpid(t.pid, &status, __WALL));
	ASSERT_EQ(0, ptrace(PTRACE_POKEDATA, t.pid, scratch, 1));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, t.pid, 0, 0));

	/* Still tracing an open task: closing the gate would leave a way out. */
	ret = prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0);
	ASSERT_EQ(-1, ret);
	ASSERT_EQ(EBUSY, errno);
	ASSERT_EQ(0, prctl(PR_GET_NETWORK, 0, 0, 0, 0));

	/* Control: once detached, the gate closes. */
	ASSERT_EQ(0, ptrace(PTRACE_INTERRUPT, t.pid, 0, 0));
	ASSERT_EQ(t.pid, waitpid(t.pid, &status, __WALL));
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, t.pid, 0, 0));
	ASSERT_EQ(0, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0));
	EXPECT_EQ(-1, ptrace(PTRACE_SEIZE, t.pid, 0, 0));
	EXPECT_EQ(EPERM, errno);
	kill(t.pid, SIGKILL);
	waitpid(t.pid, &status, __WALL);
}

TEST_HARNESS_MAIN
