// SPDX-License-Identifier: GPL-2.0
/*
 * TIOCSTI pushes a byte into the input queue of the caller's controlling
 * terminal, as if typed there: whatever reads the terminal next (the shell
 * that started a sandboxed program, say) runs it.  A nosuid task may be a
 * sandbox that must not reach outside its own privileges, so it gets EPERM.
 *
 * Each test runs in a child that becomes a session leader with a fresh
 * pseudo-terminal as its controlling terminal, drops to the unprivileged
 * user, and tries TIOCSTI before (control: the byte is read back from the
 * terminal) and after PR_SET_NOSUID (EPERM, and nothing arrives).
 *
 * A job in the background reaches the same input without pushing a byte:
 * ignoring SIGTTOU, it may make itself the foreground (TIOCSPGRP) or turn
 * echo on (TCSETS), and setpgid() may make it a member of the foreground
 * job.  Of these the kernel refuses a nosuid job only the last, while the
 * foreground holds a task that is not nosuid (background_job): job control
 * is given up by running the job on a terminal of its own, which the
 * nosuid tool does (selftests/nosuid_tool/nosuid_tool_pty_test.c).
 *
 * A task that left the session opens the terminal by its name, as a file
 * of its uid: a nosuid task may not, while the session holds a task that
 * is not nosuid (outside_session), not even through an io_uring thread
 * made before the flag (outside_session_io_uring); a terminal whose
 * session holds only nosuid tasks stays open to it (nosuid_session).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>

#include "common.h"
#include "uring.h"
#include "../kselftest_harness.h"

/* Exit codes of the child besides 0 (and the harness's own failures). */
#define CHILD_TIOCSTI_EIO 42	/* the control got EIO: legacy TIOCSTI off */

static int set_nosuid(void)
{
	return prctl(PR_SET_NOSUID, 1, 0, 0, 0);
}

static void drop_to_user(struct __test_metadata *const _metadata)
{
	ASSERT_EQ(0, setgroups(0, NULL));
	ASSERT_EQ(0, setresgid(USER_GID, USER_GID, USER_GID));
	ASSERT_EQ(0, setresuid(USER_UID, USER_UID, USER_UID));
}

FIXTURE(tty)
{
	int master;
	char slave[64];
};

FIXTURE_VARIANT(tty)
{
	/*
	 * false: the task that did the control sets the flag itself.
	 * true: it sets the flag and forks; the child, which inherited the
	 * flag and shares the controlling terminal, tries.
	 */
	bool inherited;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(tty, own_flag) {
	.inherited = false,
};

FIXTURE_VARIANT_ADD(tty, inherited_flag) {
	.inherited = true,
};

/* clang-format on */

FIXTURE_SETUP(tty)
{
	self->master = -1;
	if (prctl(PR_GET_NOSUID, 0, 0, 0, 0) < 0 && errno == EINVAL)
		SKIP(return, "kernel lacks PR_SET_NOSUID");
	if (geteuid() != 0)
		SKIP(return, "must run as root to change to the test user");

	self->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (self->master < 0 && errno == ENOENT)
		SKIP(return, "no /dev/ptmx (kernel without CONFIG_UNIX98_PTYS?)");
	/* /dev/ptmx opens the devpts instance mounted next to it. */
	if (self->master < 0 && errno == ENODEV)
		SKIP(return, "no devpts mounted on /dev/pts");
	ASSERT_LE(0, self->master)
	{
		TH_LOG("posix_openpt: %s", strerror(errno));
	}
	ASSERT_EQ(0, grantpt(self->master));
	ASSERT_EQ(0, unlockpt(self->master));
	ASSERT_EQ(0, ptsname_r(self->master, self->slave, sizeof(self->slave)));
	if (access(self->slave, F_OK))
		SKIP(return, "%s missing: no devpts mounted on /dev/pts",
		     self->slave);
}

FIXTURE_TEARDOWN(tty)
{
	if (self->master >= 0)
		close(self->master);
}

/* Read one byte with the termios timeout set below: 0 bytes if none came. */
static ssize_t read_byte(int fd, char *c)
{
	ssize_t n;

	do {
		n = read(fd, c, 1);
	} while (n < 0 && errno == EINTR);
	return n;
}

/* The slave as our controlling terminal, raw, reads giving up after 0.5 s. */
static int open_ctty(struct __test_metadata *const _metadata,
		     const char *path)
{
	struct termios tio;
	int slave;

	/*
	 * Called in a child of the test: the harness made the test itself a
	 * process group leader, which setsid() refuses.
	 */
	ASSERT_LT(0, setsid());
	slave = open(path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, slave);
	/* A session leader without one acquires it on open; be explicit. */
	ASSERT_EQ(0, ioctl(slave, TIOCSCTTY, 0));
	ASSERT_EQ(0, tcgetattr(slave, &tio));
	/*
	 * Non-canonical: a byte is readable at once, no newline needed.  No
	 * echo, no signals: only what TIOCSTI pushed is in the queue.
	 */
	tio.c_lflag &= ~(ICANON | ECHO | ISIG | IEXTEN);
	tio.c_iflag &= ~(ICRNL | IXON);
	tio.c_cc[VMIN] = 0;
	tio.c_cc[VTIME] = 5;
	ASSERT_EQ(0, tcsetattr(slave, TCSANOW, &tio));
	ASSERT_EQ(0, tcflush(slave, TCIFLUSH));
	return slave;
}

/* The same, owned by the user as a login pty is, and the user dropped to. */
static int open_user_ctty(struct __test_metadata *const _metadata,
			  const char *path)
{
	int slave = open_ctty(_metadata, path);

	/* Any task of the uid opens it by its name. */
	ASSERT_EQ(0, fchown(slave, USER_UID, -1));
	drop_to_user(_metadata);
	return slave;
}

/* In the child; the exit code says how it went. */
static int tiocsti_child(struct __test_metadata *const _metadata,
			 const FIXTURE_VARIANT(tty) *variant, const char *path)
{
	char byte = 'x', got = 0;
	int slave, status;
	pid_t pid;

	slave = open_ctty(_metadata, path);
	drop_to_user(_metadata);
	/* TIOCSTI works on the caller's controlling terminal only. */
	ASSERT_EQ(getsid(0), tcgetsid(slave));

	/* Control: the unprivileged user, without the flag, may. */
	if (ioctl(slave, TIOCSTI, &byte) && errno == EIO)
		return CHILD_TIOCSTI_EIO;
	ASSERT_EQ(1, read_byte(slave, &got));
	ASSERT_EQ('x', got);
	/* ... and the queue is empty again. */
	ASSERT_EQ(0, read_byte(slave, &got));

	ASSERT_EQ(0, set_nosuid());
	byte = 'y';
	if (variant->inherited) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			/* Same session, same terminal, the flag inherited. */
			ASSERT_EQ(1, prctl(PR_GET_NOSUID, 0, 0, 0, 0));
			ASSERT_EQ(getsid(0), tcgetsid(slave));
			ASSERT_EQ(-1, ioctl(slave, TIOCSTI, &byte));
			ASSERT_EQ(EPERM, errno);
			_exit(0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status));
	} else {
		ASSERT_EQ(-1, ioctl(slave, TIOCSTI, &byte));
		ASSERT_EQ(EPERM, errno);
	}
	/* Nothing was queued: the read times out empty. */
	ASSERT_EQ(0, read_byte(slave, &got))
	{
		TH_LOG("read back '%c'", got);
	}
	close(slave);
	return 0;
}

TEST_F(tty, tiocsti)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(tiocsti_child(_metadata, variant, self->slave));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == CHILD_TIOCSTI_EIO)
		SKIP(return,
		     "TIOCSTI is EIO even without nosuid: kernel without CONFIG_LEGACY_TIOCSTI or dev.tty.legacy_tiocsti=0");
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/* What take_the_terminal() found refused. */
#define REFUSED_TCSETS	1	/* EIO */
#define REFUSED_SETPGRP	2	/* ENOTTY */
#define REFUSED_JOIN	4	/* EPERM */

/*
 * What a job in the background tries, ignoring SIGTTOU, in a session
 * whose foreground is @fg, each step undone when it worked: the REFUSED_*
 * bits, or 100 + a step that failed in another way.
 */
static int take_the_terminal(int slave, pid_t fg)
{
	struct termios tio;
	int refused = 0;

	if (tcgetattr(slave, &tio))
		return 100;
	/* The terminal's modes: echo back on during a prompt, say. */
	if (tcsetattr(slave, TCSANOW, &tio))
		refused |= errno == EIO ? REFUSED_TCSETS : 100;
	/* The foreground: the shell's input would come to us. */
	if (tcsetpgrp(slave, getpgrp()))
		refused |= errno == ENOTTY ? REFUSED_SETPGRP : 101;
	else if (tcsetpgrp(slave, fg))
		return 102;
	/* A member of the foreground job. */
	if (setpgid(0, fg))
		refused |= errno == EPERM ? REFUSED_JOIN : 103;
	else if (setpgid(0, 0))
		return 104;
	return refused;
}

/* A background job: its own process group, SIGTTOU ignored. */
static int background_job(int slave, pid_t fg, bool nosuid, bool inherited)
{
	int status, ret;
	pid_t pid;

	if (setpgid(0, 0) || signal(SIGTTOU, SIG_IGN) == SIG_ERR)
		return 110;
	if (!nosuid)
		return take_the_terminal(slave, fg);
	if (set_nosuid())
		return 111;
	if (!inherited)
		return take_the_terminal(slave, fg);
	pid = fork();
	if (pid == 0)
		_exit(take_the_terminal(slave, fg));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 112;
	ret = WEXITSTATUS(status);
	return ret;
}

static int run_job(int slave, bool nosuid, bool inherited)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(background_job(slave, getpgrp(), nosuid, inherited));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 120;
	return WEXITSTATUS(status);
}

TEST_F(tty, background_job)
{
	int status, slave, ret;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* The session leader, not nosuid, holds the foreground. */
		slave = open_ctty(_metadata, self->slave);
		drop_to_user(_metadata);
		ASSERT_EQ(getpgrp(), tcgetpgrp(slave));
		/* Control: a job without the flag takes and gives back. */
		ret = run_job(slave, false, false);
		ASSERT_EQ(0, ret);
		ASSERT_EQ(getpgrp(), tcgetpgrp(slave));
		/*
		 * With it, joining the foreground job is refused; taking the
		 * foreground and the modes is what a shared terminal allows
		 * any job (given back here, as the control does).
		 */
		ret = run_job(slave, true, variant->inherited);
		EXPECT_EQ(REFUSED_JOIN, ret);
		EXPECT_EQ(getpgrp(), tcgetpgrp(slave));
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/*
 * Outside the session: a task that left it with setsid() opens the
 * session's terminal by its name, as a file of its uid, then reads it and
 * changes it.  0 when all works; REFUSED_OPEN when the open is refused
 * with EACCES, else the bits of what was refused with EIO, or 100 + a
 * step that failed otherwise.
 */
#define REFUSED_OPEN	4
static int use_from_outside(const char *path, bool nosuid)
{
	struct termios tio;
	int fd, refused = 0;
	char c;

	if (setsid() < 0)
		return 100;
	if (nosuid && set_nosuid())
		return 101;
	fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == EACCES ? REFUSED_OPEN : 102;
	if (tcgetattr(fd, &tio))
		return 103;
	if (tcsetattr(fd, TCSANOW, &tio))
		refused |= errno == EIO ? REFUSED_TCSETS : 100;
	/* Nothing was typed: EAGAIN when the read is allowed at all. */
	if (read(fd, &c, 1) < 0 && errno != EAGAIN)
		refused |= errno == EIO ? REFUSED_SETPGRP : 104;
	close(fd);
	return refused;
}

/*
 * As a session leader without a controlling terminal, open @path without
 * O_NOCTTY, which makes a terminal without a session the caller's
 * controlling terminal in tty_open(): 0 when it opened and /dev/tty is
 * now it, REFUSED_OPEN when the open was refused and no controlling
 * terminal was acquired, else 100 + a step.
 */
static int use_as_ctty(const char *path, bool nosuid)
{
	int fd;

	if (setsid() < 0)
		return 100;
	if (nosuid && set_nosuid())
		return 101;
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno != EACCES)
		return 102;
	if (fd >= 0)
		close(fd);
	fd = open("/dev/tty", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return nosuid ? 105 : 0;
	}
	return errno == ENXIO ? REFUSED_OPEN : 103;
}

/* @use(@path, @nosuid) in a child: its exit code, 120 if it did not exit. */
static int run_child(int (*use)(const char *, bool), const char *path,
		     bool nosuid)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(use(path, nosuid));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 120;
	return WEXITSTATUS(status);
}

static int run_as_ctty(const char *path, bool nosuid)
{
	return run_child(use_as_ctty, path, nosuid);
}

static int run_outside(const char *path, bool nosuid)
{
	return run_child(use_from_outside, path, nosuid);
}

TEST_F(tty, outside_session)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Kept open: the session's controlling terminal. */
		open_user_ctty(_metadata, self->slave);
		/* Control: without the flag, both work. */
		EXPECT_EQ(0, run_outside(self->slave, false));
		/* With it, the terminal does not open. */
		EXPECT_EQ(REFUSED_OPEN, run_outside(self->slave, true));
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/*
 * A pty whose session does not exist yet: its maker (a terminal emulator,
 * sshd) has unlocked it and is about to give it to a login shell.  A
 * descriptor taken now would read what is typed there later.  A nosuid
 * task does not open it, unless a nosuid task made the pty itself.
 */
TEST_F(tty, session_less_pty)
{
	int status, master, fd;
	char own[64];
	pid_t pid;

	/* The fixture's pty: made by a task that kept its rights, no session. */
	ASSERT_EQ(0, chown(self->slave, USER_UID, -1));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		drop_to_user(_metadata);
		/* Control: without the flag, it opens. */
		EXPECT_EQ(0, run_outside(self->slave, false));
		EXPECT_EQ(REFUSED_OPEN, run_outside(self->slave, true));
		/*
		 * Opened by a session leader without O_NOCTTY, it would become
		 * the caller's own controlling terminal before the check.
		 */
		EXPECT_EQ(REFUSED_OPEN, run_as_ctty(self->slave, true));
		/* Control: without the flag it is acquired (and let go). */
		EXPECT_EQ(0, run_as_ctty(self->slave, false));
		/* A pty a nosuid task made opens before its session exists. */
		ASSERT_EQ(0, set_nosuid());
		master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
		ASSERT_LE(0, master);
		ASSERT_EQ(0, unlockpt(master));
		ASSERT_EQ(0, ptsname_r(master, own, sizeof(own)));
		if (variant->inherited) {
			/* By a child, which inherited the flag. */
			EXPECT_EQ(0, run_outside(own, true));
		} else {
			fd = open(own, O_RDWR | O_NOCTTY | O_CLOEXEC);
			EXPECT_LE(0, fd);
		}
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/*
 * Terminals are told by the tty layer, not by their device number: a BSD
 * pty slave (major 3), like a USB or ARM serial line or an hvc console,
 * whose session holds a task that kept its rights is refused as a devpts
 * one is.
 */
TEST(bsd_pty_outside_session)
{
	int master, status;
	pid_t pid;

	if (geteuid() != 0)
		SKIP(return, "must run as root to change to the test user");
	master = open("/dev/ptyp0", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 && errno == ENOENT)
		SKIP(return, "no /dev/ptyp0: kernel without CONFIG_LEGACY_PTYS");
	ASSERT_LE(0, master);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		open_user_ctty(_metadata, "/dev/ttyp0");
		/* Control: without the flag, it opens. */
		EXPECT_EQ(0, run_outside("/dev/ttyp0", false));
		EXPECT_EQ(REFUSED_OPEN, run_outside("/dev/ttyp0", true));
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));

	/*
	 * No session, but held open by a task that kept its rights (a serial
	 * console under minicom): refused, as a controlling terminal too.
	 */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int other = open("/dev/ptyp1", O_RDWR | O_NOCTTY | O_CLOEXEC);
		int slave;

		ASSERT_LE(0, other);
		slave = open("/dev/ttyp1", O_RDWR | O_NOCTTY | O_CLOEXEC);
		ASSERT_LE(0, slave);
		ASSERT_EQ(0, fchown(slave, USER_UID, -1));
		drop_to_user(_metadata);
		EXPECT_EQ(0, run_outside("/dev/ttyp1", false));
		EXPECT_EQ(REFUSED_OPEN, run_outside("/dev/ttyp1", true));
		EXPECT_EQ(REFUSED_OPEN, run_as_ctty("/dev/ttyp1", true));
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	close(master);
}

/*
 * What stays open to a nosuid task: its own controlling terminal, by its
 * name, and a terminal whose session holds only nosuid tasks (the pty the
 * nosuid tool gives a command), from outside that session.
 */
TEST_F(tty, nosuid_session)
{
	int status, fd;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		open_user_ctty(_metadata, self->slave);
		ASSERT_EQ(0, set_nosuid());
		/* Its own controlling terminal, by name. */
		fd = open(self->slave, O_RDWR | O_NOCTTY | O_CLOEXEC);
		EXPECT_LE(0, fd);
		if (fd >= 0)
			close(fd);
		/* From another session: only nosuid tasks in this one. */
		EXPECT_EQ(0, run_outside(self->slave, true));
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/* Send @fd over @sock with SCM_RIGHTS. */
static int send_fd(int sock, int fd)
{
	char data = 't', buf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

/*
 * In a session of its own, nosuid or not, take a descriptor from @sock:
 * 0 when it arrived, 1 when the message came without it (refused), else
 * 100 + the step that failed.
 */
static int receive_terminal(int sock, bool nosuid)
{
	char data, buf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *cmsg;
	int fd;

	if (setsid() < 0)
		return 100;
	if (nosuid && set_nosuid())
		return 101;
	if (recvmsg(sock, &msg, 0) != 1)
		return 102;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg)
		return msg.msg_flags & MSG_CTRUNC ? 1 : 103;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	close(fd);
	return 0;
}

/*
 * The user's terminal handed over rather than opened: over SCM_RIGHTS
 * (or taken with pidfd_getfd(), the same check).  A nosuid task outside
 * the session does not receive it, nor the pty's master, which reads
 * and writes the same terminal.
 */
TEST_F(tty, terminal_passed_over)
{
	int status, slave, sv[2], i;
	pid_t pid, receiver;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		slave = open_user_ctty(_metadata, self->slave);
		for (i = 0; i < 4; i++) {
			ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
			receiver = fork();
			ASSERT_LE(0, receiver);
			if (receiver == 0) {
				close(sv[0]);
				_exit(receive_terminal(sv[1], i % 2));
			}
			close(sv[1]);
			ASSERT_EQ(0, send_fd(sv[0], i < 2 ? slave : self->master));
			ASSERT_EQ(receiver, waitpid(receiver, &status, 0));
			ASSERT_TRUE(WIFEXITED(status));
			/* Control: without the flag it arrives. */
			EXPECT_EQ(i % 2 ? 1 : 0, WEXITSTATUS(status));
			close(sv[0]);
		}
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/*
 * The same through io_uring, by a thread the ring made before the flag:
 * the SQPOLL thread, or an io-wq worker.  They never set the flag
 * themselves, but open and read for their thread group (IORING_OP_OPENAT
 * and IORING_OP_READ run in them), so they must count as nosuid as it
 * does.  The pty has a byte waiting, so the read completes at once where
 * it is allowed.  0 and the byte with no flag; 1 when the open is refused
 * with EACCES; else 100 + the step that failed, or the result + 200.
 */
static int read_through_ring(const char *path, bool nosuid, bool sqpoll)
{
	struct io_uring_sqe rd = {
		.opcode = IORING_OP_READ,
		.off = -1,
		.len = 1,
	};
	struct io_uring_sqe op = { .opcode = IORING_OP_OPENAT };
	struct ring r;
	int pipefd[2];
	char c = 0;
	int ret;

	if (setsid() < 0)
		return 100;
	if (ring_init(&r, sqpoll ? IORING_SETUP_SQPOLL : 0))
		return 101;
	/*
	 * An io-wq worker, alive and idle, before the flag: a forced-async
	 * read of a pipe, which goes to the unbound workers as a pty read
	 * does (a NOP would make a bound one).
	 */
	if (!sqpoll) {
		if (pipe(pipefd) || write(pipefd[1], "w", 1) != 1)
			return 102;
		rd.fd = pipefd[0];
		rd.addr = (uintptr_t)&c;
		rd.flags = IOSQE_ASYNC;
		if (ring_run(&r, &rd) != 1 || c != 'w')
			return 102;
		c = 0;
	}
	if (nosuid && set_nosuid())
		return 103;
	op.fd = AT_FDCWD;
	op.addr = (uintptr_t)path;
	op.open_flags = O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC;
	op.flags = sqpoll ? 0 : IOSQE_ASYNC;
	ret = ring_run(&r, &op);
	if (ret == -EACCES)
		return 1;
	if (ret < 0)
		return 104;
	rd.fd = ret;
	rd.addr = (uintptr_t)&c;
	ret = ring_run(&r, &rd);
	if (ret == 1 && c == 's')
		return 0;
	return 200 + (ret < 0 ? -ret % 50 : ret % 50);
}

static int run_ring_reader(const char *path, int master, int slave,
			   bool nosuid, bool sqpoll)
{
	struct pollfd in = { .fd = slave, .events = POLLIN };
	int status;
	pid_t pid;

	/*
	 * A byte typed on the terminal, not read by the session's job, and
	 * past the flip buffer (a wait, not a time limit): readable at once.
	 */
	if (write(master, "s", 1) != 1 || poll(&in, 1, 30000) != 1)
		return 121;
	pid = fork();
	if (pid == 0)
		_exit(read_through_ring(path, nosuid, sqpoll));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 120;
	return WEXITSTATUS(status);
}

TEST_F(tty, outside_session_io_uring)
{
	struct io_uring_params params = {};
	int status, slave, ring;
	pid_t pid;

	ring = syscall(__NR_io_uring_setup, 1, &params);
	if (ring < 0 && errno == ENOSYS)
		SKIP(return, "kernel lacks io_uring");
	ASSERT_LE(0, ring);
	close(ring);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		slave = open_user_ctty(_metadata, self->slave);
		/* Control: without the flag, each thread reads the byte. */
		EXPECT_EQ(0, run_ring_reader(self->slave, self->master, slave,
					     false, true));
		EXPECT_EQ(0, run_ring_reader(self->slave, self->master, slave,
					     false, false));
		/* With it, neither the SQPOLL thread nor the worker opens it. */
		EXPECT_EQ(1, run_ring_reader(self->slave, self->master, slave,
					     true, true));
		ASSERT_EQ(0, tcflush(slave, TCIFLUSH));
		EXPECT_EQ(1, run_ring_reader(self->slave, self->master, slave,
					     true, false));
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/*
 * A read that began while the reader's own job had the foreground, and
 * still waits when the shell takes the terminal back for a job that kept
 * its rights (sudo's password prompt, after "nosuid make && sudo make
 * install"): job control is asked when a read begins, not when it wakes,
 * so the first line typed goes to the reader (the control).  The reader
 * is the job's leader (own_flag) or its child (inherited_flag), and a
 * child that left the session with setsid() and opened the terminal by
 * its name, which a nosuid one cannot do.
 */
#define PENDING_GOT_BYTE 1
#define PENDING_EIO 2
#define PENDING_REFUSED_OPEN 3	/* a nosuid reader outside: no terminal */

/* Says it is about to read (its pid), reads one byte, says what came. */
static void pending_reader(const char *path, int slave, bool outside,
			   int ready, int report)
{
	pid_t me = getpid();
	ssize_t n;
	char c, r;

	if (outside) {
		if (setsid() < 0)
			_exit(100);
		slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (slave < 0) {
			/* No reader to wait for: pid 0, then why. */
			r = errno == EACCES ? PENDING_REFUSED_OPEN : 101;
			me = 0;
			_exit(write(ready, &me, sizeof(me)) == sizeof(me) &&
			      write(report, &r, 1) == 1 ? 0 : 103);
		}
	}
	if (write(ready, &me, sizeof(me)) != sizeof(me))
		_exit(102);
	n = read(slave, &c, 1);
	r = n == 1 && c == 'x' ? PENDING_GOT_BYTE :
	    n < 0 && errno == EIO ? PENDING_EIO : 100 + (n < 0 ? errno % 50 : 50);
	_exit(write(report, &r, 1) == 1 ? 0 : 103);
}

/* The job: waits for the foreground, sets the flag, starts the reader. */
static int pending_job(const char *path, int slave, bool nosuid,
		       bool by_child, bool outside, int go, int ready,
		       int report)
{
	int status;
	pid_t pid;
	char c;

	if (setpgid(0, 0) || read(go, &c, 1) != 1)
		return 110;
	if (nosuid && set_nosuid())
		return 111;
	if (!by_child)
		pending_reader(path, slave, outside, ready, report);
	pid = fork();
	if (pid == 0)
		pending_reader(path, slave, outside, ready, report);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 112;
	return WEXITSTATUS(status);
}

/* Until @pid sleeps in read(2) (a wait for a state, with a sanity bound). */
static bool waits_in_read(pid_t pid)
{
	char path[64], buf[64], nr[16];
	int i, fd, len;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	len = snprintf(nr, sizeof(nr), "%d ", __NR_read);
	for (i = 0; i < 30000; i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return false;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		/* The number of read(2), shown only while the task sleeps. */
		if (n > len && !strncmp(buf, nr, len))
			return true;
		usleep(1000);
	}
	return false;
}

/*
 * In the session leader, the shell: the job gets the foreground, its
 * reader sleeps, the shell takes the terminal back and a byte is typed.
 * The reader's result, PENDING_*, and whether the shell got the byte.
 */
static int hand_back(struct __test_metadata *const _metadata,
		     const char *path, int master, int slave, bool nosuid,
		     bool by_child, bool outside, bool *shell_got_it)
{
	int go[2], ready[2], report[2], status;
	struct pollfd in = { .fd = slave, .events = POLLIN };
	pid_t job, reader;
	char r = 0, c = 0;

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(report));
	job = fork();
	ASSERT_LE(0, job);
	if (job == 0)
		_exit(pending_job(path, slave, nosuid, by_child, outside,
				  go[0], ready[1], report[1]));
	ASSERT_EQ(0, setpgid(job, job));
	ASSERT_EQ(0, tcsetpgrp(slave, job));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(sizeof(reader), read(ready[0], &reader, sizeof(reader)));
	/* 0: the reader could not even open the terminal. */
	if (reader)
		ASSERT_TRUE(waits_in_read(reader));
	/* The job is done as far as the shell knows: it takes the terminal. */
	ASSERT_EQ(0, tcsetpgrp(slave, getpgrp()));
	ASSERT_EQ(1, write(master, "x", 1));
	ASSERT_EQ(1, read(report[0], &r, 1));
	/* Refused, the byte waits for the shell (past the flip buffer). */
	*shell_got_it = poll(&in, 1, r != PENDING_GOT_BYTE ? 30000 : 0) == 1 &&
			read(slave, &c, 1) == 1 && c == 'x';
	ASSERT_EQ(job, waitpid(job, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
	close(report[0]);
	close(report[1]);
	return r;
}

TEST_F(tty, pending_read_after_handoff)
{
	/* The reader, and what its read and the shell must get. */
	const struct {
		bool nosuid, by_child, outside;
		int want;
	} cases[] = {
		/* Control: without the flag, the pending read gets the byte. */
		{ false, variant->inherited, false, PENDING_GOT_BYTE },
		{ false, true, true, PENDING_GOT_BYTE },
		/*
		 * With it, outside the session, the terminal does not even
		 * open and the shell reads the byte.  Inside the session the
		 * terminal is shared, as the control shows: the nosuid tool
		 * runs a job on a pty of its own (nosuid_tool_pty_test.c,
		 * reader_left_behind).
		 */
		{ true, true, true, PENDING_REFUSED_OPEN },
	};
	struct termios tio;
	int status, slave;
	unsigned int i;
	bool got;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		slave = open_user_ctty(_metadata, self->slave);
		/*
		 * The uid change made us undumpable, and our children with
		 * us: /proc/PID/syscall of the reader needs it back.
		 */
		ASSERT_EQ(0, prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
		/* Reads wait for a byte, with no timeout. */
		ASSERT_EQ(0, tcgetattr(slave, &tio));
		tio.c_cc[VMIN] = 1;
		tio.c_cc[VTIME] = 0;
		ASSERT_EQ(0, tcsetattr(slave, TCSANOW, &tio));
		/* As a shell does: it takes the terminal back from the job. */
		ASSERT_NE(SIG_ERR, signal(SIGTTOU, SIG_IGN));
		for (i = 0; i < ARRAY_SIZE(cases); i++) {
			EXPECT_EQ(cases[i].want,
				  hand_back(_metadata, self->slave, self->master,
					    slave, cases[i].nosuid,
					    cases[i].by_child, cases[i].outside,
					    &got))
			{
				TH_LOG("case %u", i);
			}
			EXPECT_EQ(cases[i].want != PENDING_GOT_BYTE, got);
		}
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
