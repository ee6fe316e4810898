// SPDX-License-Identifier: GPL-2.0
/*
 * nosuid - run a command that can never gain privilege through exec again,
 * and optionally without the network.
 *
 *	nosuid [--no-network] [--netns] [--] COMMAND [ARG...]
 *	nosuid --status [PID]
 *
 * The command-line front end of PR_SET_NOSUID, PR_SET_NETWORK and the
 * unprivileged CLONE_NEWNET of nosuid tasks, in the spirit of
 * "setpriv --no-new-privs" and DJB's disablenetwork: change the calling
 * process, then exec the command in it.  Exit status as env(1) and
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
#include <sys/fsuid.h>
#include <sys/prctl.h>
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
"Usage: nosuid [--no-network] [--netns] [--] COMMAND [ARG...]\n"
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
	case EDQUOT:
		die("refusing: no key quota left for the new session keyring (EDQUOT)");
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
};

static const struct option options[] = {
	{ "no-network",	no_argument, NULL, OPT_NO_NETWORK },
	{ "netns",	no_argument, NULL, OPT_NETNS },
	{ "status",	no_argument, NULL, OPT_STATUS },
	{ "help",	no_argument, NULL, 'h' },
	{ "version",	no_argument, NULL, 'V' },
	{ }
};

int main(int argc, char *argv[])
{
	bool no_network = false, netns = false, status = false;
	int opt, err;

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
		if (no_network || netns) {
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

	/*
	 * nosuid first: the other two steps are only allowed to nosuid
	 * tasks.  Then the namespace, then the gate: creating a namespace is
	 * not network use, and with the gate closed last it is the final
	 * word, closed over the namespace the command will have; the
	 * namespace step (where the kernel brings lo up for us) then never
	 * depends on how the LSM treats a gated task.  Either way, every
	 * step must succeed before COMMAND runs, and a failure exits here:
	 * the half-changed process is never used.
	 */
	set_nosuid();
	if (netns)
		new_netns();
	if (no_network)
		set_network_off();

	execvp(argv[0], argv);
	err = errno;
	fprintf(stderr, "nosuid: %s: %s\n", argv[0], strerror(err));
	return err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}
