// SPDX-License-Identifier: GPL-2.0
/*
 * nosuid - run a command that can never gain privilege through exec again,
 * and optionally without the network.
 *
 *	nosuid [--no-network] [--netns] [--share-terminal] [--] COMMAND [ARG...]
 *	nosuid --status [PID]
 *
 * The command-line front end of PR_SET_NOSUID, PR_SET_NETWORK and the
 * unprivileged CLONE_NEWNET of nosuid tasks, in the spirit of
 * "setpriv --no-new-privs" and DJB's disablenetwork.  The command runs in
 * a new session: on a pseudo-terminal of its own, relayed to the caller's
 * terminal, when stdin, stdout or stderr is one (sudo's use_pty, su
 * --pty), and with no terminal otherwise (bubblewrap's --new-session).  A
 * task that shares a terminal with tasks that kept their rights can take
 * what is typed to them; the kernel refuses a nosuid task the terminals of
 * other sessions that hold such tasks, and this keeps it off the caller's.
 * With --share-terminal the calling process is changed and the command
 * exec'd in it, on the caller's terminal.  Exit status as env(1) and
 * setpriv(1): 125 when nosuid itself fails (and then the command is never
 * run), 126 when the command cannot be run, 127 when it is not found,
 * otherwise the command's own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

/* Values of the series, for headers older than it. */
#ifndef PR_SET_NOSUID
#define PR_SET_NOSUID		0x4e535501
#endif
#ifndef PR_SET_NETWORK
#define PR_SET_NETWORK		0x4e535503
#endif
#ifndef PR_NETWORK_OFF
#define PR_NETWORK_OFF		1
#endif

#define NOSUID_VERSION		"1.0"
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define EXIT_FAILED		125	/* nosuid itself failed */
#define EXIT_CANNOT_RUN		126	/* COMMAND found but not executable */
#define EXIT_NOT_FOUND		127	/* COMMAND not found */

#define NETNS_SYSCTL		"/proc/sys/kernel/nosuid_netns_clone"
#define MAX_NETNS_SYSCTL	"/proc/sys/user/max_net_namespaces"

static const char usage_text[] =
"Usage: nosuid [--no-network] [--netns] [--share-terminal] [--] COMMAND [ARG...]\n"
"       nosuid --status [PID]\n";

static const char help_text[] =
"\n"
"Run COMMAND so that neither it nor anything it starts can gain privilege\n"
"through exec: setuid and setgid bits and file capabilities are ignored, as\n"
"if every file lived on a nosuid mount (prctl PR_SET_NOSUID).  This cannot\n"
"be undone.  The caller must hold no capabilities, must not be uid 0, gid 0\n"
"or in group 0 (SECBIT_NOROOT or not: root owns too many files), and its\n"
"real, effective, saved and filesystem ids must be equal.\n"
"\n"
"Options:\n"
"  --no-network   also close the network gate (PR_SET_NETWORK, PR_NETWORK_OFF):\n"
"                 no sockets but AF_UNIX, no abstract AF_UNIX addresses\n"
"  --netns        run COMMAND in a new network namespace of its own, where\n"
"                 only lo exists (up, 127.0.0.1 and ::1)\n"
"  --share-terminal  run COMMAND in this process, in the caller's session and\n"
"                 on the caller's terminal; COMMAND can then read what is typed\n"
"                 there for other programs (a sudo password) and take the\n"
"                 terminal from them.  By default COMMAND runs in a session of\n"
"                 its own, on a pseudo-terminal relayed to the caller's when\n"
"                 stdin, stdout or stderr is a terminal, with none otherwise\n"
"  --status [PID] print the NoNewPrivs, NoSUID and NoNetwork state and the\n"
"                 network namespace of PID (default: the caller, since\n"
"                 --status changes nothing)\n"
"  -h, --help     print this help and exit\n"
"  -V, --version  print the version and exit\n"
"\n"
"Exit status: 125 if nosuid itself fails (COMMAND is not run), 126 if\n"
"COMMAND cannot be executed, 127 if it is not found, otherwise the exit\n"
"status of COMMAND.\n";

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fputs("nosuid: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_FAILED);
}

static void __attribute__((noreturn)) usage_error(void)
{
	fputs(usage_text, stderr);
	fputs("Try 'nosuid --help' for more information.\n", stderr);
	exit(EXIT_FAILED);
}

/* "EINVAL" rather than "Invalid argument": the prctl documentation's word. */
static const char *errname(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : strerror(err);
}

/* A whole /proc file, NUL-terminated; false when it cannot be read. */
static bool read_text(const char *file, char *buf, size_t size)
{
	FILE *f = fopen(file, "r");
	size_t len;

	if (!f)
		return false;
	len = fread(buf, 1, size - 1, f);
	buf[len] = '\0';
	fclose(f);
	return len > 0;
}

/*
 * The value of the line "KEY:\t..." of a /proc/PID/status text into val.
 * False when the line is missing: a kernel without the feature has none.
 */
static bool status_field(const char *text, const char *key, char *val,
			 size_t size)
{
	size_t len = strlen(key);
	const char *p = text;

	while (p) {
		if (!strncmp(p, key, len) && p[len] == ':') {
			p += len + 1;
			p += strspn(p, " \t");
			snprintf(val, size, "%.*s", (int)strcspn(p, "\n"), p);
			return true;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

/* A single-number sysctl, or -1 when it does not exist or cannot be read. */
static long read_sysctl(const char *path)
{
	long val = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &val) != 1)
		val = -1;
	fclose(f);
	return val;
}

static bool hex_is_zero(const char *s)
{
	return s[strspn(s, "0")] == '\0';
}

static bool in_group_zero(void)
{
	gid_t groups[NGROUPS_MAX];
	int i, n = getgroups(NGROUPS_MAX, groups);

	for (i = 0; i < n; i++)
		if (groups[i] == 0)
			return true;
	return false;
}

/* EACCES: say which privilege the kernel saw, so that it can be dropped. */
static void __attribute__((noreturn)) refuse_privileged(void)
{
	char text[4096], prm[32] = "?", eff[32] = "?", amb[32] = "?";
	bool known, caps, root;

	known = read_text("/proc/self/status", text, sizeof(text)) &&
		status_field(text, "CapPrm", prm, sizeof(prm)) &&
		status_field(text, "CapEff", eff, sizeof(eff)) &&
		status_field(text, "CapAmb", amb, sizeof(amb));
	caps = known && !(hex_is_zero(prm) && hex_is_zero(eff) && hex_is_zero(amb));
	/* The kernel's test: the root user and group own too much to be unprivileged. */
	root = getuid() == 0 || getgid() == 0 || in_group_zero();

	if (caps)
		fprintf(stderr, "nosuid: refusing: the caller holds capabilities (CapPrm %s CapEff %s CapAmb %s); drop them first\n",
			prm, eff, amb);
	if (root)
		fputs("nosuid: refusing: the caller is uid 0, gid 0 or in group 0, which own most of the system's files whatever the capabilities (SECBIT_NOROOT or not); run it as an unprivileged user\n",
		      stderr);
	if (!caps && !root)
		die("refusing: the caller holds privilege (EACCES; CapPrm %s CapEff %s CapAmb %s)",
		    prm, eff, amb);
	exit(EXIT_FAILED);
}

/* EPERM: show all the ids, since which pair differs is the whole story. */
static void __attribute__((noreturn)) refuse_mixed_ids(void)
{
	uid_t uid, euid, suid;
	gid_t gid, egid, sgid;

	getresuid(&uid, &euid, &suid);
	getresgid(&gid, &egid, &sgid);
	/* An invalid id changes nothing and returns the current fs id. */
	die("refusing: real, effective, saved and filesystem ids differ (uid %u euid %u suid %u fsuid %u, gid %u egid %u sgid %u fsgid %u); is nosuid installed setuid or setgid?",
	    uid, euid, suid, setfsuid(-1), gid, egid, sgid, setfsgid(-1));
}

static void set_nosuid(void)
{
	/* Already set (nosuid run under nosuid) succeeds too. */
	if (!prctl(PR_SET_NOSUID, 1, 0, 0, 0))
		return;
	switch (errno) {
	case EINVAL:
		die("this kernel does not support PR_SET_NOSUID (EINVAL)");
	case EPERM:
		refuse_mixed_ids();
	case EACCES:
		refuse_privileged();
	case EBUSY:
		die("refusing: another task shares this process's memory, file table or cwd, or it traces one (EBUSY)");
	default:
		die("PR_SET_NOSUID failed: %s", strerror(errno));
	}
}

static void set_network_off(void)
{
	if (!prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0))
		return;
	switch (errno) {
	case EINVAL:
		die("this kernel does not support PR_SET_NETWORK (EINVAL): is the disablenetwork LSM enabled (lsm=)?");
	case EPERM:
		die("the network gate requires nosuid (EPERM)");
	case EBUSY:
		die("refusing: another task shares this process's memory, file table or cwd, or it traces one (EBUSY)");
	default:
		die("PR_SET_NETWORK failed: %s", strerror(errno));
	}
}

static void new_netns(void)
{
	long val;

	if (!unshare(CLONE_NEWNET))
		return;
	switch (errno) {
	case EPERM:
		/* The sysctl comes with the feature: tell "off" from "absent". */
		val = read_sysctl(NETNS_SYSCTL);
		if (val == 0)
			die("cannot create a network namespace: EPERM (kernel.nosuid_netns_clone is 0)");
		if (val < 0 && access("/proc/sys/kernel", F_OK) == 0)
			die("cannot create a network namespace: EPERM (this kernel does not let nosuid tasks create one: no kernel.nosuid_netns_clone)");
		die("cannot create a network namespace: EPERM (kernel.nosuid_netns_clone is 0?)");
	case ENOSPC:
		val = read_sysctl(MAX_NETNS_SYSCTL);
		if (val >= 0)
			die("cannot create a network namespace: ENOSPC (user.max_net_namespaces, %ld, reached)", val);
		die("cannot create a network namespace: ENOSPC (user.max_net_namespaces reached)");
	case EINVAL:
		die("cannot create a network namespace: EINVAL (kernel without CONFIG_NET_NS)");
	default:
		die("cannot create a network namespace: %s (%s)", errname(errno),
		    strerror(errno));
	}
}

/*
 * What COMMAND becomes, in the process that runs it: nosuid first (the
 * other two steps are only allowed to nosuid tasks), then the namespace,
 * then the gate.  Creating a namespace is not network use, and with the
 * gate closed last it is the final word, closed over the namespace the
 * command will have; the namespace step (where the kernel brings lo up)
 * then never depends on how the LSM treats a gated task.  Every step must
 * succeed before COMMAND runs; a failure exits here with 125.
 */
static void restrict_self(bool netns, bool no_network)
{
	set_nosuid();
	if (netns)
		new_netns();
	if (no_network)
		set_network_off();
}

static void __attribute__((noreturn)) exec_only(char *argv[])
{
	int err;

	execvp(argv[0], argv);
	err = errno;
	fprintf(stderr, "nosuid: %s: %s\n", argv[0], strerror(err));
	exit(err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN);
}

static void __attribute__((noreturn))
exec_command(char *argv[], bool netns, bool no_network)
{
	restrict_self(netns, no_network);
	exec_only(argv);
}

/* An exit status for the shell, as the shell reports a child's. */
static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

static pid_t command_pgrp;

static void forward_signal(int sig)
{
	kill(-command_pgrp, sig);
}

/*
 * In the pty's session, as its leader, nosuid like the command: start the
 * command in a process group of its own, in the pty's foreground, so that
 * ^Z stops it (a session leader's own group is orphaned, and the kernel
 * does not stop those on ^Z), and pass its stops up to the relay by
 * stopping too.  Exits with the command's status.
 */
static void __attribute__((noreturn)) monitor(char *argv[], int tty)
{
	sigset_t ttou, old;
	int status;
	pid_t pid;

	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		setpgid(0, 0);
		sigprocmask(SIG_BLOCK, &ttou, &old);
		tcsetpgrp(tty, getpid());
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(tty);
		exec_only(argv);
	}
	setpgid(pid, pid);
	command_pgrp = pid;
	signal(SIGHUP, forward_signal);
	signal(SIGTERM, forward_signal);
	signal(SIGINT, forward_signal);
	signal(SIGQUIT, forward_signal);
	for (;;) {
		if (waitpid(pid, &status, WUNTRACED) < 0) {
			if (errno == EINTR)
				continue;
			die("waitpid: %s", strerror(errno));
		}
		if (!WIFSTOPPED(status))
			break;
		/* The relay sees us stopped; its SIGCONT resumes us. */
		kill(getpid(), SIGSTOP);
		sigprocmask(SIG_BLOCK, &ttou, &old);
		tcsetpgrp(tty, pid);
		sigprocmask(SIG_SETMASK, &old, NULL);
		kill(-pid, SIGCONT);
	}
	exit(exit_code(status));
}

/* Descriptors above 2 that are terminals: COMMAND gets none of them. */
static void close_other_terminals_but(int keep)
{
	long max = sysconf(_SC_OPEN_MAX);
	int fd;

	for (fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
		if (fd != keep && isatty(fd))
			close(fd);
}

/* The signals the parent handles, read from a signalfd. */
static int block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGWINCH);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCONT);
	if (sigprocmask(SIG_BLOCK, &set, old))
		die("sigprocmask: %s", strerror(errno));
	return signalfd(-1, &set, SFD_CLOEXEC);
}


static struct termios user_termios;
static int raw_fd = -1;

/* The caller's terminal in raw mode: the pty's line discipline does it all. */
static void set_raw(int fd)
{
	struct termios raw = user_termios;

	cfmakeraw(&raw);
	if (!tcsetattr(fd, TCSAFLUSH, &raw))
		raw_fd = fd;
}

static void restore_terminal(void)
{
	if (raw_fd >= 0)
		tcsetattr(raw_fd, TCSAFLUSH, &user_termios);
	raw_fd = -1;
}

static bool write_all(int fd, const char *buf, ssize_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= n;
	}
	return true;
}

/*
 * COMMAND stopped (^Z typed on its pty) and its monitor with it: stop
 * ourselves, so that the caller's shell sees the job stopped, and continue
 * the monitor, which continues COMMAND, when we are continued (fg).
 */
static void suspend(pid_t pid, int in_fd)
{
	sigset_t unblock;

	restore_terminal();
	sigemptyset(&unblock);
	sigaddset(&unblock, SIGCONT);
	signal(SIGCONT, SIG_DFL);
	sigprocmask(SIG_UNBLOCK, &unblock, NULL);
	/* As a shell's job stops on ^Z: the shell then reports it. */
	kill(getpid(), SIGTSTP);
	sigprocmask(SIG_BLOCK, &unblock, NULL);
	if (in_fd >= 0)
		set_raw(in_fd);
	kill(pid, SIGCONT);
}

/*
 * Run COMMAND in a session of its own, on a new pseudo-terminal (when
 * @pty) relayed to the caller's terminal: the user's keys go to it, its
 * output comes back, and the window size follows.  Without @pty, in a
 * new session with no terminal.  Returns COMMAND's exit status.
 */
static int run_in_session(char *argv[], bool netns, bool no_network, bool pty)
{
	int in_fd = isatty(STDIN_FILENO) ? STDIN_FILENO : -1;
	int out_fd = isatty(STDOUT_FILENO) ? STDOUT_FILENO :
		     isatty(STDERR_FILENO) ? STDERR_FILENO : -1;
	int user_fd = in_fd >= 0 ? in_fd : out_fd;
	bool have_termios = false, master_open = pty;
	int master = -1, sfd, status, fd = -1;
	struct signalfd_siginfo si;
	char name[64], buf[4096];
	struct winsize ws;
	sigset_t old;
	pid_t pid;
	ssize_t n;

	if (pty) {
		master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (master < 0 || grantpt(master) || unlockpt(master) ||
		    ptsname_r(master, name, sizeof(name)))
			die("cannot make a pseudo-terminal: %s (try --share-terminal)",
			    strerror(errno));
		have_termios = !tcgetattr(user_fd, &user_termios);
	}
	sfd = block_signals(&old);
	if (sfd < 0)
		die("signalfd: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (setsid() < 0)
			die("setsid: %s", strerror(errno));
		if (pty) {
			/* A session leader's first terminal becomes its own. */
			fd = open(name, O_RDWR);
			if (fd < 0 || ioctl(fd, TIOCSCTTY, 0))
				die("cannot open %s: %s", name, strerror(errno));
			if (have_termios)
				tcsetattr(fd, TCSANOW, &user_termios);
			if (!ioctl(user_fd, TIOCGWINSZ, &ws))
				ioctl(fd, TIOCSWINSZ, &ws);
			/* The caller's terminal, wherever it was, becomes ours. */
			for (int i = 0; i <= 2; i++)
				if (isatty(i) && dup2(fd, i) < 0)
					die("dup2: %s", strerror(errno));
			/* Kept for the monitor: stdin may be a pipe. */
			if (fcntl(fd, F_SETFD, FD_CLOEXEC))
				die("fcntl: %s", strerror(errno));
		}
		close_other_terminals_but(fd);
		restrict_self(netns, no_network);
		if (pty)
			monitor(argv, fd);
		exec_only(argv);
	}
	if (in_fd >= 0 && have_termios)
		set_raw(in_fd);
	for (;;) {
		struct pollfd p[3] = {
			{ .fd = sfd, .events = POLLIN },
			{ .fd = master_open ? master : -1, .events = POLLIN },
			{ .fd = master_open ? in_fd : -1, .events = POLLIN },
		};

		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents) {
			n = read(master, buf, sizeof(buf));
			/* EIO: no one holds the pty's other side any more. */
			if (n <= 0 || out_fd < 0 || !write_all(out_fd, buf, n))
				master_open = n > 0;
		}
		if (p[2].revents) {
			n = read(in_fd, buf, sizeof(buf));
			if (n <= 0 || !write_all(master, buf, n))
				in_fd = -1;
		}
		if (!p[0].revents || read(sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		switch (si.ssi_signo) {
		case SIGWINCH:
			if (pty && !ioctl(user_fd, TIOCGWINSZ, &ws))
				ioctl(master, TIOCSWINSZ, &ws);
			break;
		case SIGCONT:
			break;
		case SIGCHLD:
			if (waitpid(pid, &status, WNOHANG | WUNTRACED) != pid)
				break;
			if (WIFSTOPPED(status)) {
				suspend(pid, in_fd);
				break;
			}
			/* What COMMAND wrote last, then its status. */
			if (master_open) {
				fcntl(master, F_SETFL, O_NONBLOCK);
				while ((n = read(master, buf, sizeof(buf))) > 0 &&
				       out_fd >= 0 && write_all(out_fd, buf, n))
					;
			}
			restore_terminal();
			return exit_code(status);
		default:
			/* Ours to pass on: COMMAND decides what they mean. */
			kill(-pid, si.ssi_signo);
		}
	}
	restore_terminal();
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid: %s", strerror(errno));
	return exit_code(status);
}

static bool is_pid(const char *s)
{
	return *s && strlen(s) < 12 && s[strspn(s, "0123456789")] == '\0';
}

/*
 * Reads only: without PID this is /proc/self, the tool itself, which has
 * exactly the caller's state because --status changes nothing.
 */
static int show_status(const char *pid)
{
	static const char *const keys[] = { "NoNewPrivs", "NoSUID", "NoNetwork" };
	char file[64], text[4096], val[64], ns[64];
	ssize_t len;
	size_t i;

	snprintf(file, sizeof(file), "/proc/%s/status", pid);
	if (!read_text(file, text, sizeof(text))) {
		if (errno == ENOENT && strcmp(pid, "self"))
			die("no process %s", pid);
		die("cannot read %s: %s", file, strerror(errno));
	}
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		/* Missing: the kernel lacks that part of the series. */
		if (!status_field(text, keys[i], val, sizeof(val)))
			snprintf(val, sizeof(val), "unknown");
		printf("%s:\t%s\n", keys[i], val);
	}
	/* Reading another task's namespace link needs ptrace read access. */
	snprintf(file, sizeof(file), "/proc/%s/ns/net", pid);
	len = readlink(file, ns, sizeof(ns) - 1);
	if (len < 0)
		printf("NetNS:\tunknown (%s)\n", strerror(errno));
	else
		printf("NetNS:\t%.*s\n", (int)len, ns);
	return fflush(stdout) ? EXIT_FAILED : 0;
}

enum {
	OPT_NO_NETWORK = 256,
	OPT_NETNS,
	OPT_STATUS,
	OPT_SHARE_TERMINAL,
};

static const struct option options[] = {
	{ "no-network",	no_argument, NULL, OPT_NO_NETWORK },
	{ "netns",	no_argument, NULL, OPT_NETNS },
	{ "status",	no_argument, NULL, OPT_STATUS },
	{ "share-terminal", no_argument, NULL, OPT_SHARE_TERMINAL },
	{ "help",	no_argument, NULL, 'h' },
	{ "version",	no_argument, NULL, 'V' },
	{ }
};

int main(int argc, char *argv[])
{
	bool no_network = false, netns = false, status = false, share = false;
	int opt;

	/* getopt_long's own messages then start with "nosuid:" too. */
	argv[0] = "nosuid";
	/* "+": stop at COMMAND, whose options are its own. */
	while ((opt = getopt_long(argc, argv, "+hV", options, NULL)) != -1) {
		switch (opt) {
		case OPT_NO_NETWORK:
			no_network = true;
			break;
		case OPT_NETNS:
			netns = true;
			break;
		case OPT_STATUS:
			status = true;
			break;
		case OPT_SHARE_TERMINAL:
			share = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			fputs(help_text, stdout);
			return 0;
		case 'V':
			printf("nosuid %s\n", NOSUID_VERSION);
			return 0;
		default:
			usage_error();
		}
	}
	argv += optind;
	argc -= optind;

	if (status) {
		if (no_network || netns || share) {
			fputs("nosuid: --status changes nothing and takes no other option\n",
			      stderr);
			usage_error();
		}
		if (argc > 1)
			usage_error();
		if (argc == 1 && !is_pid(argv[0])) {
			fprintf(stderr, "nosuid: invalid PID '%s'\n", argv[0]);
			usage_error();
		}
		return show_status(argc ? argv[0] : "self");
	}
	if (argc < 1) {
		fputs("nosuid: missing COMMAND\n", stderr);
		usage_error();
	}

	if (share)
		exec_command(argv, netns, no_network);
	return run_in_session(argv, netns, no_network,
			      isatty(STDIN_FILENO) || isatty(STDOUT_FILENO) ||
			      isatty(STDERR_FILENO));
}
