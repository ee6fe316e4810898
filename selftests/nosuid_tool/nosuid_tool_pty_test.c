// SPDX-License-Identifier: GPL-2.0
/*
 * The nosuid tool and the caller's terminal.  A task that shares a
 * terminal with tasks that kept their rights can read what is typed to
 * them (a sudo password), so the tool runs the command on a
 * pseudo-terminal of its own and relays the caller's terminal to it, as
 * sudo's use_pty does; the kernel refuses the nosuid command the caller's
 * terminal by its name.  Used as a person would: the test is the "shell",
 * a session on a fresh pty owned by uid 1000, which types on the pty's
 * master side and reads what appears there.
 *
 * Each effect has its control: --share-terminal, the old behaviour, runs
 * the same command on the caller's terminal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"

#define TOOL_DEFAULT "/usr/local/bin/nosuid"
#define USER_ID 1000

struct term {
	int master;
	char slave[64];
	pid_t pid;		/* the session leader: the tool, or sh */
	char out[8192];
	size_t len;
};

static const char *tool(void)
{
	const char *path = getenv("NOSUID_TOOL");

	return path ? path : TOOL_DEFAULT;
}

/* The user's terminal: a pty of uid 1000, @rows x @cols. */
static void term_open(struct __test_metadata *const _metadata,
		      struct term *t, unsigned short rows, unsigned short cols)
{
	struct winsize ws = { .ws_row = rows, .ws_col = cols };

	memset(t, 0, sizeof(*t));
	t->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	ASSERT_LE(0, t->master);
	ASSERT_EQ(0, grantpt(t->master));
	ASSERT_EQ(0, unlockpt(t->master));
	ASSERT_EQ(0, ptsname_r(t->master, t->slave, sizeof(t->slave)));
	ASSERT_EQ(0, ioctl(t->master, TIOCSWINSZ, &ws));
}

/*
 * Start @argv as uid 1000, a session leader whose controlling terminal,
 * stdin, stdout and stderr are the pty: a login shell's position.  It
 * also holds the terminal as descriptor 5, as a shell may keep a copy.
 */
static void term_start(struct __test_metadata *const _metadata,
		       struct term *t, char *const argv[])
{
	int fd;

	t->pid = fork();
	ASSERT_LE(0, t->pid);
	if (t->pid)
		return;
	if (setsid() < 0)
		_exit(97);
	fd = open(t->slave, O_RDWR);
	if (fd < 0 || ioctl(fd, TIOCSCTTY, 0) ||
	    fchown(fd, USER_ID, -1) ||
	    dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 ||
	    dup2(fd, 5) < 0)
		_exit(98);
	if (fd > 2 && fd != 5)
		close(fd);
	if (setgroups(0, NULL) || setresgid(USER_ID, USER_ID, USER_ID) ||
	    setresuid(USER_ID, USER_ID, USER_ID))
		_exit(99);
	execv(argv[0], argv);
	_exit(127);
}

/* Read what appears on the terminal until @want does (or EOF, or @secs). */
static bool term_wait(struct term *t, const char *want, int secs)
{
	struct pollfd p = { .fd = t->master, .events = POLLIN };
	time_t end = time(NULL) + secs;
	ssize_t n;

	while (!want || !strstr(t->out, want)) {
		if (time(NULL) > end || poll(&p, 1, 1000) < 0)
			return false;
		if (!p.revents)
			continue;
		n = read(t->master, t->out + t->len,
			 sizeof(t->out) - 1 - t->len);
		if (n <= 0)	/* EIO: no one holds the terminal any more */
			return !want;
		t->len += n;
		t->out[t->len] = '\0';
	}
	return true;
}

static bool term_wait_for(struct term *t, const char *want)
{
	return term_wait(t, want, 30);
}

static void term_type(struct __test_metadata *const _metadata,
		      struct term *t, const char *keys)
{
	ASSERT_EQ((ssize_t)strlen(keys), write(t->master, keys, strlen(keys)));
}

/* Everything up to the end, and the session leader's exit status. */
static int term_finish(struct __test_metadata *const _metadata,
		       struct term *t)
{
	int status;

	term_wait_for(t, NULL);
	EXPECT_EQ(t->pid, waitpid(t->pid, &status, 0));
	close(t->master);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* The terminal name the command printed after "tty:". */
static void tty_name(const char *out, char *name, size_t size)
{
	const char *p = strstr(out, "tty:");

	name[0] = '\0';
	if (p)
		sscanf(p + 4, "%63[^\r\n]", name);
	(void)size;
}

/* Each test boots a shell and the tool on a pty: slow under emulation. */
FIXTURE(pty) {};
FIXTURE_SETUP(pty) {}
FIXTURE_TEARDOWN(pty) {}

TEST_F_TIMEOUT(pty, command_gets_a_pty_of_its_own, 120)
{
	char *own[] = { (char *)tool(), "/bin/sh", "-c", "echo tty:$(tty)",
			NULL };
	char *shared[] = { (char *)tool(), "--share-terminal", "/bin/sh",
			   "-c", "echo tty:$(tty)", NULL };
	char name[64];
	struct term t;

	term_open(_metadata, &t, 24, 80);
	term_start(_metadata, &t, own);
	ASSERT_EQ(0, term_finish(_metadata, &t));
	tty_name(t.out, name, sizeof(name));
	TH_LOG("user's terminal %s, the command's %s", t.slave, name);
	EXPECT_EQ(0, strncmp(name, "/dev/pts/", 9));
	EXPECT_NE(0, strcmp(name, t.slave));

	/* Control: --share-terminal keeps the caller's. */
	term_open(_metadata, &t, 24, 80);
	term_start(_metadata, &t, shared);
	ASSERT_EQ(0, term_finish(_metadata, &t));
	tty_name(t.out, name, sizeof(name));
	EXPECT_STREQ(t.slave, name);
}

/*
 * Run "sh -c" after the @n words of @prefix, on a fresh terminal, trying
 * to open that terminal by its name: "opened" or "refused".
 */
static void open_by_name(struct __test_metadata *const _metadata,
			 const char *const prefix[], int n, const char *want)
{
	char script[160], result[32];
	char *argv[8];
	struct term t;
	int i;

	term_open(_metadata, &t, 24, 80);
	snprintf(script, sizeof(script),
		 "if (exec 3<>%s) 2>/dev/null; then echo result:opened; else echo result:refused; fi",
		 t.slave);
	for (i = 0; i < n; i++)
		argv[i] = (char *)prefix[i];
	argv[i++] = "/bin/sh";
	argv[i++] = "-c";
	argv[i++] = script;
	argv[i] = NULL;
	term_start(_metadata, &t, argv);
	ASSERT_EQ(0, term_finish(_metadata, &t));
	snprintf(result, sizeof(result), "result:%s", want);
	EXPECT_NE(NULL, strstr(t.out, result));
}

/*
 * The caller's terminal by its name: a file of the user's, mode 620, so
 * any task of the uid could open it and read what is typed there.
 */
TEST_F_TIMEOUT(pty, callers_terminal_refused_by_name, 120)
{
	const char *own[] = { tool() };
	const char *shared[] = { tool(), "--share-terminal" };

	open_by_name(_metadata, own, 1, "refused");
	/* Control: the same command without the tool opens it. */
	open_by_name(_metadata, NULL, 0, "opened");
	/* And with --share-terminal: its own controlling terminal. */
	open_by_name(_metadata, shared, 2, "opened");
}

/* No other descriptor of the caller's terminal reaches the command. */
TEST_F_TIMEOUT(pty, other_terminal_descriptors_closed, 120)
{
	char *script = "if [ -e /proc/self/fd/5 ]; then echo fd5:kept; else echo fd5:closed; fi";
	char *own[] = { (char *)tool(), "/bin/sh", "-c", script, NULL };
	char *shared[] = { (char *)tool(), "--share-terminal", "/bin/sh",
			   "-c", script, NULL };
	struct term t;

	term_open(_metadata, &t, 24, 80);
	term_start(_metadata, &t, own);
	ASSERT_EQ(0, term_finish(_metadata, &t));
	EXPECT_NE(NULL, strstr(t.out, "fd5:closed"));

	/* Control: --share-terminal passes it on, as exec does. */
	term_open(_metadata, &t, 24, 80);
	term_start(_metadata, &t, shared);
	ASSERT_EQ(0, term_finish(_metadata, &t));
	EXPECT_NE(NULL, strstr(t.out, "fd5:kept"));
}

/* What is typed reaches the command, and its exit status comes back. */
TEST_F_TIMEOUT(pty, typed_line_and_exit_status, 120)
{
	char *argv[] = { (char *)tool(), "/bin/sh", "-c",
			 "echo ready; read line; echo got:$line; exit 7", NULL };
	struct term t;

	term_open(_metadata, &t, 24, 80);
	term_start(_metadata, &t, argv);
	ASSERT_TRUE(term_wait_for(&t, "ready"));
	/* The caller's terminal is raw now: Enter is a carriage return. */
	term_type(_metadata, &t, "hello\r");
	EXPECT_EQ(7, term_finish(_metadata, &t));
	EXPECT_NE(NULL, strstr(t.out, "got:hello"));
}

/* ^C typed is the command's interrupt, as on its own terminal. */
TEST_F_TIMEOUT(pty, interrupt_key, 120)
{
	char *argv[] = { (char *)tool(), "/bin/sh", "-c",
			 "echo ready; exec sleep 60", NULL };
	struct term t;

	term_open(_metadata, &t, 24, 80);
	term_start(_metadata, &t, argv);
	ASSERT_TRUE(term_wait_for(&t, "ready"));
	term_type(_metadata, &t, "\003");
	EXPECT_EQ(128 + SIGINT, term_finish(_metadata, &t));
}

/* The window size at the start, and when the caller's window changes. */
TEST_F_TIMEOUT(pty, window_size, 120)
{
	char *argv[] = { (char *)tool(), "/bin/sh", "-c",
			 "echo size:$(stty size); trap 'echo size:$(stty size); exit 0' WINCH; echo ready; while :; do sleep 1; done",
			 NULL };
	struct winsize ws = { .ws_row = 40, .ws_col = 100 };
	struct term t;

	term_open(_metadata, &t, 33, 77);
	term_start(_metadata, &t, argv);
	ASSERT_TRUE(term_wait_for(&t, "ready"));
	EXPECT_NE(NULL, strstr(t.out, "size:33 77"));
	/* As a terminal emulator does: the kernel signals the foreground. */
	ASSERT_EQ(0, ioctl(t.master, TIOCSWINSZ, &ws));
	EXPECT_TRUE(term_wait_for(&t, "size:40 100"));
	EXPECT_EQ(0, term_finish(_metadata, &t));
}

/*
 * In the test's child, as a shell would be: the session leader on the
 * pty, as uid 1000, starting @argv as a job in a process group of its
 * own and in the foreground.  The job's pid, or -(the step that failed).
 */
static pid_t shell_starts_job(struct term *t, char *const argv[])
{
	pid_t job;
	int fd;

	if (setsid() < 0)
		return -97;
	fd = open(t->slave, O_RDWR);
	if (fd < 0 || ioctl(fd, TIOCSCTTY, 0) || fchown(fd, USER_ID, -1) ||
	    dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		return -98;
	if (setgroups(0, NULL) || setresgid(USER_ID, USER_ID, USER_ID) ||
	    setresuid(USER_ID, USER_ID, USER_ID))
		return -99;
	signal(SIGTTOU, SIG_IGN);
	job = fork();
	if (job == 0) {
		setpgid(0, 0);
		tcsetpgrp(0, getpid());
		signal(SIGTTOU, SIG_DFL);
		execv(argv[0], argv);
		_exit(127);
	}
	setpgid(job, job);
	tcsetpgrp(0, job);
	return job;
}

/*
 * ^Z stops the command, and nosuid with it, so that the caller's shell
 * sees its job stopped and takes the terminal back; fg continues both.
 * Here the test's child is the shell: the session leader on the caller's
 * terminal, running the tool as a job in a process group of its own.
 */
static int job_control_shell(struct term *t, char *const argv[])
{
	pid_t job = shell_starts_job(t, argv);
	int status;

	if (job < 0)
		return -job;
	if (waitpid(job, &status, WUNTRACED) != job || !WIFSTOPPED(status))
		return 90;
	tcsetpgrp(0, getpgrp());
	if (write(1, "shell:stopped\r\n", 15) != 15)
		return 91;
	/* fg */
	tcsetpgrp(0, job);
	kill(-job, SIGCONT);
	if (waitpid(job, &status, WUNTRACED) != job)
		return 92;
	if (!WIFEXITED(status))
		return 93;
	return WEXITSTATUS(status);
}

TEST_F_TIMEOUT(pty, suspend_key, 120)
{
	char *argv[] = { (char *)tool(), "/bin/sh", "-c",
			 "echo ready; read x; echo got:$x", NULL };
	struct term t;
	int i;

	term_open(_metadata, &t, 24, 80);
	t.pid = fork();
	ASSERT_LE(0, t.pid);
	if (t.pid == 0)
		_exit(job_control_shell(&t, argv));
	ASSERT_TRUE(term_wait_for(&t, "ready"));
	term_type(_metadata, &t, "\032");
	ASSERT_TRUE(term_wait_for(&t, "shell:stopped"));
	/*
	 * Continued, nosuid puts the terminal back in raw mode, flushing
	 * what was typed before: type until the command has the line.
	 */
	for (i = 0; i < 60 && !strstr(t.out, "got:hi"); i++) {
		term_type(_metadata, &t, "hi\r");
		term_wait(&t, "got:hi", 1);
	}
	EXPECT_EQ(0, term_finish(_metadata, &t));
	EXPECT_NE(NULL, strstr(t.out, "got:hi"));
}

/*
 * "nosuid make && sudo make install": a process of the command left
 * behind with a read of its terminal pending, when the shell, and sudo
 * after it, read the next line typed.  On the caller's terminal the
 * pending read takes it (the control, --share-terminal: the kernel asks
 * job control when a read begins, not when it wakes).  On the command's
 * own pty it cannot: the pty is gone when nosuid exits.  The test's
 * child is the shell: it runs the tool, then reads a line itself.
 */
static int shell_then_read(struct term *t, char *const argv[])
{
	struct pollfd in = { .fd = 0, .events = POLLIN };
	pid_t job = shell_starts_job(t, argv);
	char line[64] = "";
	int status;
	ssize_t n;

	if (job < 0)
		return -job;
	if (waitpid(job, &status, 0) != job)
		return 90;
	/* The job is done as far as the shell knows: it takes the terminal. */
	tcsetpgrp(0, getpgrp());
	if (write(1, "shell:reading\r\n", 15) != 15)
		return 91;
	/* Non-blocking: a reader left behind may take the line first. */
	fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
	while (poll(&in, 1, 3000) == 1) {
		n = read(0, line, sizeof(line) - 1);
		if (n >= 0 || errno != EAGAIN) {
			line[n > 0 ? n : 0] = '\0';
			break;
		}
	}
	line[strcspn(line, "\r\n")] = '\0';
	dprintf(1, "shell got:[%s]\r\n", line);
	return 0;
}

static void read_stolen(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, size - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

TEST_F_TIMEOUT(pty, reader_left_behind, 120)
{
	/* A background list reads /dev/null unless told: stdin as fd 3. */
	char dir[] = "/tmp/nosuid-pty-XXXXXX", file[64], script[192];
	char *own[] = { (char *)tool(), "/bin/sh", "-c", script, NULL };
	char *shared[] = { (char *)tool(), "--share-terminal", "/bin/sh",
			   "-c", script, NULL };
	char *const *argvs[] = { shared, own };
	char stolen[64];
	struct term t;
	int i;

	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, chmod(dir, 0777));
	snprintf(file, sizeof(file), "%s/stolen", dir);
	snprintf(script, sizeof(script),
		 "exec 3<&0; (head -n 1 <&3 > %s) & sleep 1; exit 0", file);
	for (i = 0; i < 2; i++) {
		unlink(file);
		term_open(_metadata, &t, 24, 80);
		t.pid = fork();
		ASSERT_LE(0, t.pid);
		if (t.pid == 0)
			_exit(shell_then_read(&t, argvs[i]));
		ASSERT_TRUE(term_wait_for(&t, "shell:reading"));
		/* Let a pending read that survived settle in its wait. */
		usleep(500000);
		term_type(_metadata, &t, "secret\n");
		EXPECT_EQ(0, term_finish(_metadata, &t));
		usleep(200000);
		read_stolen(file, stolen, sizeof(stolen));
		TH_LOG("%s: the shell saw %s, the reader left behind [%s]",
		       i ? "own pty" : "--share-terminal",
		       strstr(t.out, "shell got:") ?: "nothing", stolen);
		if (i == 0) {
			/* Control: on the shared terminal the line is stolen. */
			EXPECT_NE(NULL, strstr(stolen, "secret"));
		} else {
			EXPECT_EQ(NULL, strstr(stolen, "secret"));
			EXPECT_NE(NULL, strstr(t.out, "shell got:[secret]"));
		}
	}
	unlink(file);
	rmdir(dir);
}

TEST_HARNESS_MAIN
