// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the nosuid command-line tool (tools/nosuid.c), installed in the
 * guest as /usr/local/bin/nosuid (NOSUID_TOOL overrides the path): every
 * option, every refusal and every exit status, checked by running the tool
 * as the person would, from root or from the unprivileged user, and
 * looking at what the command it starts sees.
 *
 * Each refusal is paired with the same command succeeding for a caller that
 * may use the tool, and each effect on the command with the same command
 * run without it, so that every check could fail.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/prctl.h>
#include <linux/securebits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"

/* PR_SET_NOSUID and the others: the kernel's uapi headers (KHDR_INCLUDES). */

#define TOOL_DEFAULT "/usr/local/bin/nosuid"
#define USER_ID 1000
#define OTHER_ID 1001
/* Not an exit status of the tool: the child failed before exec. */
#define SETUP_FAILED 99
#define PATH_ENV "/usr/local/bin:/bin:/sbin:/usr/bin:/usr/sbin"
#define NETNS_CLONE_SYSCTL "/proc/sys/kernel/nosuid_netns_clone"
#define MAX_NETNS_SYSCTL "/proc/sys/user/max_net_namespaces"

/* Who runs the tool. */
enum who {
	ROOT,		/* the test itself: uid 0, every capability */
	ROOT_NEWNET,	/* root in a network namespace it just created */
	ROOT_NOROOT,	/* uid 0 with SECBIT_NOROOT: exec grants no capability */
	USER,		/* uid and gid 1000, no groups, no capabilities */
	USER_AMBIENT,	/* uid 1000 holding CAP_NET_RAW as ambient capability */
	MIXED_UID,	/* uid 1000, euid 1001 (suid and fsuid follow at exec) */
	MIXED_GID,	/* gid 1000, egid 1001 */
};

struct run {
	int status;	/* exit status, 128 + signal when killed */
	char out[4096];
	char err[4096];
};

static const char *tool(void)
{
	const char *path = getenv("NOSUID_TOOL");

	return path ? path : TOOL_DEFAULT;
}

static int drop(uid_t uid, uid_t euid, gid_t gid, gid_t egid)
{
	if (setgroups(0, NULL) || setresgid(gid, egid, egid) ||
	    setresuid(uid, euid, euid))
		return -1;
	return 0;
}

/* uid 1000 keeping CAP_NET_RAW through exec, as ambient capability. */
static int drop_keep_ambient(void)
{
	struct __user_cap_header_struct head = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { };

	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) ||
	    drop(USER_ID, USER_ID, USER_ID, USER_ID))
		return -1;
	data[0].permitted = 1U << CAP_NET_RAW;
	data[0].effective = data[0].permitted;
	data[0].inheritable = data[0].permitted;
	if (syscall(SYS_capset, &head, data))
		return -1;
	return prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_RAW, 0, 0);
}

static int become(enum who who)
{
	switch (who) {
	case ROOT:
		return 0;
	case ROOT_NEWNET:
		return unshare(CLONE_NEWNET);
	case ROOT_NOROOT:
		return prctl(PR_SET_SECUREBITS,
			     SECBIT_NOROOT | SECBIT_NOROOT_LOCKED, 0, 0, 0);
	case USER:
		return drop(USER_ID, USER_ID, USER_ID, USER_ID);
	case USER_AMBIENT:
		return drop_keep_ambient();
	case MIXED_UID:
		return drop(USER_ID, OTHER_ID, USER_ID, USER_ID);
	case MIXED_GID:
		return drop(USER_ID, USER_ID, USER_ID, OTHER_ID);
	}
	return -1;
}

static void read_all(int fd, char *buf, size_t size)
{
	ssize_t len = pread(fd, buf, size - 1, 0);

	buf[len < 0 ? 0 : len] = '\0';
	close(fd);
}

/*
 * Runs the NULL-terminated command as who, with its stdout and stderr in
 * r.  Files rather than pipes: nothing to deadlock on.
 */
static void run(struct __test_metadata *const _metadata, enum who who,
		struct run *r, const char *arg0, ...)
{
	const char *argv[32] = { arg0 };
	int out, err, status, i = 1;
	va_list ap;
	pid_t pid;

	va_start(ap, arg0);
	while (i < 31 && (argv[i] = va_arg(ap, const char *)))
		i++;
	va_end(ap);
	argv[i] = NULL;

	out = memfd_create("stdout", 0);
	err = memfd_create("stderr", 0);
	ASSERT_LE(0, out);
	ASSERT_LE(0, err);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		dup2(out, STDOUT_FILENO);
		dup2(err, STDERR_FILENO);
		setenv("PATH", PATH_ENV, 1);
		if (become(who)) {
			fprintf(stderr, "test: becoming %d failed: %m\n", who);
			_exit(SETUP_FAILED);
		}
		execv(argv[0], (char **)argv);
		fprintf(stderr, "test: exec %s: %m\n", argv[0]);
		_exit(SETUP_FAILED);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) :
		    128 + WTERMSIG(status);
	read_all(out, r->out, sizeof(r->out));
	read_all(err, r->err, sizeof(r->err));
}

#define RUN(who, r, ...) run(_metadata, who, r, __VA_ARGS__, NULL)

#define SHOW(r) TH_LOG("exit %d\n--- stdout:\n%s--- stderr:\n%s", \
		       (r).status, (r).out, (r).err)

#define ASSERT_EXIT(expected, r) do { \
	if ((r).status != (expected)) \
		SHOW(r); \
	ASSERT_EQ(expected, (r).status); \
} while (0)

#define ASSERT_HAS(text, needle) do { \
	if (!strstr(text, needle)) \
		TH_LOG("'%s' not found in:\n%s", needle, text); \
	ASSERT_NE(NULL, strstr(text, needle)); \
} while (0)

#define ASSERT_LACKS(text, needle) do { \
	if (strstr(text, needle)) \
		TH_LOG("'%s' found in:\n%s", needle, text); \
	ASSERT_EQ(NULL, strstr(text, needle)); \
} while (0)

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

static int write_sysctl(const char *path, long val)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fprintf(f, "%ld\n", val) < 0;
	return fclose(f) || ret ? -1 : 0;
}

/* The value of "KEY:" in /proc/PID/status, or false when there is none. */
static bool proc_field(const char *pid, const char *key, char *val,
		       size_t size)
{
	size_t len = strlen(key);
	char path[64], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, len) || line[len] != ':')
			continue;
		snprintf(val, size, "%s", line + len + 1 + strspn(line + len + 1, " \t"));
		val[strcspn(val, "\n")] = '\0';
		found = true;
	}
	fclose(f);
	return found;
}

static void own_netns(char *buf, size_t size)
{
	ssize_t len = readlink("/proc/self/ns/net", buf, size - 1);

	buf[len < 0 ? 0 : len] = '\0';
}

/* The layers below and beside the tool, as the kernel reports them. */
static bool have_nosuid(void)
{
	return prctl(PR_GET_NOSUID, 0, 0, 0, 0) >= 0 || errno != EINVAL;
}

static bool have_network_gate(void)
{
	return prctl(PR_GET_NETWORK, 0, 0, 0, 0) >= 0 || errno != EINVAL;
}

/* The sysctl comes with the feature: no sysctl, no unprivileged netns. */
static bool have_nosuid_netns(void)
{
	return access(NETNS_CLONE_SYSCTL, F_OK) == 0;
}

/* A scratch directory anybody may write to, with a copy of the helper. */
struct scratch {
	char dir[64];
	char helper[96];
	char mark[96];
	long netns_clone, max_netns;	/* sysctls to restore, -1: none */
};

static int copy_file(const char *from, const char *to, uid_t owner,
		     mode_t mode)
{
	char buf[65536];
	int in, out, ret = -1;
	ssize_t len;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0)
		goto close_in;
	while ((len = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, len) != len)
			goto close_out;
	/* chown clears the setuid bits: mode last. */
	if (!len && !fchown(out, owner, owner) && !fchmod(out, mode))
		ret = 0;
close_out:
	close(out);
close_in:
	close(in);
	return ret;
}

static void scratch_setup(struct __test_metadata *const _metadata,
			  struct scratch *s)
{
	char exe[PATH_MAX], helper[PATH_MAX + 32];
	ssize_t len;

	s->netns_clone = -1;
	s->max_netns = -1;
	if (geteuid())
		SKIP(return, "must run as root, to drop to uid %d itself",
		     USER_ID);
	if (!have_nosuid())
		SKIP(return, "kernel lacks PR_SET_NOSUID");
	if (access(tool(), X_OK))
		TH_LOG("the tool is not installed as %s: %m", tool());
	ASSERT_EQ(0, access(tool(), X_OK));

	snprintf(s->dir, sizeof(s->dir), "/tmp/nosuid_tool.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(s->dir));
	ASSERT_EQ(0, chmod(s->dir, 0777));
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, len);
	exe[len] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(helper, sizeof(helper), "%s/nosuid_tool_helper", exe);
	snprintf(s->helper, sizeof(s->helper), "%s/helper", s->dir);
	ASSERT_EQ(0, copy_file(helper, s->helper, 0, 0755));
	snprintf(s->mark, sizeof(s->mark), "%s/mark", s->dir);

	s->netns_clone = read_sysctl(NETNS_CLONE_SYSCTL);
	s->max_netns = read_sysctl(MAX_NETNS_SYSCTL);
}

static void scratch_teardown(struct __test_metadata *const _metadata,
			     struct scratch *s)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir;

	/* Tests change these: put back what the system had. */
	if (s->netns_clone >= 0 &&
	    read_sysctl(NETNS_CLONE_SYSCTL) != s->netns_clone)
		EXPECT_EQ(0, write_sysctl(NETNS_CLONE_SYSCTL, s->netns_clone));
	if (s->max_netns >= 0 && read_sysctl(MAX_NETNS_SYSCTL) != s->max_netns)
		EXPECT_EQ(0, write_sysctl(MAX_NETNS_SYSCTL, s->max_netns));

	if (!s->dir[0])
		return;
	dir = opendir(s->dir);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->dir, d->d_name);
		unlink(path);
	}
	closedir(dir);
	rmdir(s->dir);
}

/* Asserts that a command given "/bin/touch mark" did (not) run. */
#define ASSERT_RAN(s, yes) do { \
	bool __ran = access((s)->mark, F_OK) == 0; \
	ASSERT_EQ(yes, __ran); \
	unlink((s)->mark); \
} while (0)

/* Option parsing: each case with its exit status and what it prints. */

FIXTURE(usage) {
	struct scratch s;
};

FIXTURE_VARIANT(usage) {
	const char *args[4];
	int exit;
	const char *out;	/* must appear on stdout; NULL: stdout empty */
	const char *err;	/* must appear on stderr; NULL: stderr empty */
};

FIXTURE_VARIANT_ADD(usage, help) {
	.args = { "--help" },
	.out = "Usage: nosuid [--no-network] [--netns] [--share-terminal] [--] COMMAND [ARG...]",
};

FIXTURE_VARIANT_ADD(usage, help_short) {
	.args = { "-h" },
	.out = "Exit status: 125 if nosuid itself fails",
};

FIXTURE_VARIANT_ADD(usage, version) {
	.args = { "--version" },
	.out = "nosuid 1.",
};

FIXTURE_VARIANT_ADD(usage, version_short) {
	.args = { "-V", "/bin/touch" },
	.out = "nosuid 1.",
};

FIXTURE_VARIANT_ADD(usage, unknown_option) {
	.args = { "--bogus", "/bin/true" },
	.exit = 125,
	.err = "nosuid: unrecognized option '--bogus'\nUsage: nosuid",
};

FIXTURE_VARIANT_ADD(usage, unknown_short_option) {
	.args = { "-x", "/bin/true" },
	.exit = 125,
	.err = "nosuid: invalid option -- 'x'\nUsage: nosuid",
};

FIXTURE_VARIANT_ADD(usage, ambiguous_option) {
	.args = { "--n", "/bin/true" },
	.exit = 125,
	.err = "is ambiguous",
};

FIXTURE_VARIANT_ADD(usage, missing_command) {
	.args = { },
	.exit = 125,
	.err = "nosuid: missing COMMAND\nUsage: nosuid",
};

FIXTURE_VARIANT_ADD(usage, missing_command_after_options) {
	.args = { "--no-network", "--netns", "--" },
	.exit = 125,
	.err = "nosuid: missing COMMAND\nUsage: nosuid",
};

FIXTURE_VARIANT_ADD(usage, status_with_other_option) {
	.args = { "--status", "--netns" },
	.exit = 125,
	.err = "--status changes nothing",
};

FIXTURE_VARIANT_ADD(usage, status_with_share_terminal) {
	.args = { "--status", "--share-terminal" },
	.exit = 125,
	.err = "--status changes nothing",
};

FIXTURE_VARIANT_ADD(usage, status_bad_pid) {
	.args = { "--status", "1x" },
	.exit = 125,
	.err = "nosuid: invalid PID '1x'\nUsage: nosuid",
};

FIXTURE_VARIANT_ADD(usage, status_two_pids) {
	.args = { "--status", "1", "1" },
	.exit = 125,
	.err = "Usage: nosuid",
};

FIXTURE_VARIANT_ADD(usage, status_no_such_process) {
	.args = { "--status", "999999999" },
	.exit = 125,
	.err = "nosuid: no process 999999999",
};

FIXTURE_SETUP(usage)
{
	scratch_setup(_metadata, &self->s);
}

FIXTURE_TEARDOWN(usage)
{
	scratch_teardown(_metadata, &self->s);
}

/*
 * As the user, who may use the tool: a refusal here is the parser's.  The
 * help and version cases are the controls of the error cases.
 */
TEST_F(usage, exit_status_and_output)
{
	const char *const *a = variant->args;
	struct run r;

	RUN(USER, &r, tool(), a[0], a[1], a[2], a[3]);
	ASSERT_EXIT(variant->exit, r);
	if (variant->out)
		ASSERT_HAS(r.out, variant->out);
	else
		ASSERT_STREQ("", r.out);
	if (variant->err)
		ASSERT_HAS(r.err, variant->err);
	else
		ASSERT_STREQ("", r.err);
}

/* Refusals of PR_SET_NOSUID: exit 125, a message, the command not run. */

FIXTURE(refusal) {
	struct scratch s;
};

FIXTURE_VARIANT(refusal) {
	enum who who;
	bool all_caps;		/* the capabilities message, with root's */
	bool net_raw;		/* the capabilities message, CAP_NET_RAW */
	const char *err;	/* and this, if not NULL */
	const char *not_err;	/* but not this, if not NULL */
};

FIXTURE_VARIANT_ADD(refusal, root) {
	.who = ROOT,
	.all_caps = true,
	.err = "refusing: the caller is uid 0, gid 0 or in group 0",
};

/*
 * SECBIT_NOROOT: exec gives uid 0 no capability, but uid 0 still owns
 * root's files (kernel.core_pattern): refused for that alone.
 */
FIXTURE_VARIANT_ADD(refusal, root_with_noroot_securebit) {
	.who = ROOT_NOROOT,
	.err = "refusing: the caller is uid 0, gid 0 or in group 0",
	.not_err = "holds capabilities",
};

FIXTURE_VARIANT_ADD(refusal, user_with_ambient_capability) {
	.who = USER_AMBIENT,
	.net_raw = true,
	.not_err = "uid 0",
};

FIXTURE_VARIANT_ADD(refusal, mixed_uids) {
	.who = MIXED_UID,
	.err = "nosuid: refusing: real, effective, saved and filesystem ids differ (uid 1000 euid 1001 suid 1001 fsuid 1001, gid 1000 egid 1000 sgid 1000 fsgid 1000)",
};

FIXTURE_VARIANT_ADD(refusal, mixed_gids) {
	.who = MIXED_GID,
	.err = "nosuid: refusing: real, effective, saved and filesystem ids differ (uid 1000 euid 1000 suid 1000 fsuid 1000, gid 1000 egid 1001 sgid 1001 fsgid 1001)",
};

FIXTURE_SETUP(refusal)
{
	scratch_setup(_metadata, &self->s);
}

FIXTURE_TEARDOWN(refusal)
{
	scratch_teardown(_metadata, &self->s);
}

TEST_F(refusal, refused_and_command_not_run)
{
	char prm[32], eff[32], amb[32], caps[256];
	struct run r;

	RUN(variant->who, &r, tool(), "/bin/touch", self->s.mark);
	ASSERT_EXIT(125, r);
	ASSERT_RAN(&self->s, false);
	ASSERT_STREQ("", r.out);
	if (variant->all_caps) {
		/* exec gives root the bounding set: the test's own. */
		ASSERT_TRUE(proc_field("self", "CapPrm", prm, sizeof(prm)));
		ASSERT_TRUE(proc_field("self", "CapEff", eff, sizeof(eff)));
		ASSERT_TRUE(proc_field("self", "CapAmb", amb, sizeof(amb)));
		snprintf(caps, sizeof(caps),
			 "nosuid: refusing: the caller holds capabilities (CapPrm %s CapEff %s CapAmb %s); drop them first",
			 prm, eff, amb);
		ASSERT_HAS(r.err, caps);
	}
	if (variant->net_raw) {
		snprintf(caps, sizeof(caps),
			 "(CapPrm %1$016llx CapEff %1$016llx CapAmb %1$016llx); drop them first",
			 1ULL << CAP_NET_RAW);
		ASSERT_HAS(r.err, "nosuid: refusing: the caller holds capabilities");
		ASSERT_HAS(r.err, caps);
	}
	if (variant->err)
		ASSERT_HAS(r.err, variant->err);
	if (variant->not_err)
		ASSERT_LACKS(r.err, variant->not_err);

	/* Control: the same command for the unprivileged user. */
	RUN(USER, &r, tool(), "/bin/touch", self->s.mark);
	ASSERT_EXIT(0, r);
	ASSERT_RAN(&self->s, true);
}

/* What the command sees, and the exit statuses of env(1). */

FIXTURE(tool) {
	struct scratch s;
};

FIXTURE_SETUP(tool)
{
	scratch_setup(_metadata, &self->s);
}

FIXTURE_TEARDOWN(tool)
{
	scratch_teardown(_metadata, &self->s);
}

TEST_F(tool, command_is_nosuid)
{
	struct run r;

	RUN(USER, &r, tool(), "/bin/grep", "^No", "/proc/self/status");
	ASSERT_EXIT(0, r);
	ASSERT_HAS(r.out, "NoNewPrivs:\t1\nNoSUID:\t1\n");

	/* Control: the same command without the tool. */
	RUN(USER, &r, "/bin/grep", "^No", "/proc/self/status");
	ASSERT_EXIT(0, r);
	ASSERT_HAS(r.out, "NoNewPrivs:\t0\nNoSUID:\t0\n");
}

/* Tool options end at COMMAND, or at "--"; the exit status is COMMAND's. */
TEST_F(tool, command_arguments_and_exit_status)
{
	struct run r;

	RUN(USER, &r, tool(), "/bin/sh", "-c", "echo \"$*\"; exit 42", "sh",
	    "--netns", "--status", "--help");
	ASSERT_EXIT(42, r);
	ASSERT_STREQ("--netns --status --help\n", r.out);
	ASSERT_STREQ("", r.err);

	RUN(USER, &r, tool(), "--", "/bin/echo", "--version");
	ASSERT_EXIT(0, r);
	ASSERT_STREQ("--version\n", r.out);
}

TEST_F(tool, command_not_found_127)
{
	struct run r;

	RUN(USER, &r, tool(), "/nonexistent/command");
	ASSERT_EXIT(127, r);
	ASSERT_HAS(r.err, "nosuid: /nonexistent/command: No such file or directory");

	/* Through PATH as well. */
	RUN(USER, &r, tool(), "no-such-command-for-nosuid");
	ASSERT_EXIT(127, r);
	ASSERT_HAS(r.err, "nosuid: no-such-command-for-nosuid: No such file or directory");

	/* Control: a command PATH has. */
	RUN(USER, &r, tool(), "true");
	ASSERT_EXIT(0, r);
	ASSERT_STREQ("", r.err);
}

TEST_F(tool, command_not_executable_126)
{
	char script[128];
	struct run r;
	FILE *f;

	snprintf(script, sizeof(script), "%s/script", self->s.dir);
	f = fopen(script, "w");
	ASSERT_NE(NULL, f);
	fputs("#!/bin/sh\necho ran\n", f);
	ASSERT_EQ(0, fclose(f));
	ASSERT_EQ(0, chmod(script, 0644));

	RUN(USER, &r, tool(), script);
	ASSERT_EXIT(126, r);
	ASSERT_HAS(r.err, "Permission denied");
	ASSERT_STREQ("", r.out);

	/* Control: the same file with its x bits. */
	ASSERT_EQ(0, chmod(script, 0755));
	RUN(USER, &r, tool(), script);
	ASSERT_EXIT(0, r);
	ASSERT_STREQ("ran\n", r.out);
}

TEST_F(tool, setuid_and_setgid_bits_ignored)
{
	char suid[128];
	struct run r;

	snprintf(suid, sizeof(suid), "%s/helper-suid", self->s.dir);
	ASSERT_EQ(0, copy_file(self->s.helper, suid, 0, 06755));

	/* Control: without the tool the bits work. */
	RUN(USER, &r, suid, "ids");
	ASSERT_EXIT(0, r);
	ASSERT_STREQ("uid=1000 euid=0 gid=1000 egid=0\n", r.out);

	RUN(USER, &r, tool(), suid, "ids");
	ASSERT_EXIT(0, r);
	ASSERT_STREQ("uid=1000 euid=1000 gid=1000 egid=1000\n", r.out);
}

/* --status reports the caller, changing nothing; nosuid under nosuid works. */
TEST_F(tool, status_of_the_caller)
{
	char ns[64], line[96];
	struct run r;

	own_netns(ns, sizeof(ns));
	snprintf(line, sizeof(line), "NetNS:\t%s\n", ns);

	RUN(USER, &r, tool(), "--status");
	ASSERT_EXIT(0, r);
	ASSERT_HAS(r.out, "NoNewPrivs:\t0\nNoSUID:\t0\nNoNetwork:\t");
	ASSERT_HAS(r.out, line);

	RUN(USER, &r, tool(), tool(), "--status");
	ASSERT_EXIT(0, r);
	ASSERT_HAS(r.out, "NoNewPrivs:\t1\nNoSUID:\t1\nNoNetwork:\t");
	ASSERT_HAS(r.out, line);
	ASSERT_STREQ("", r.err);
}

/* A process of the user that waits, with the gates given, until killed. */
static pid_t start_target(struct __test_metadata *const _metadata,
			  bool gated, int ready)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid)
		return pid;
	if (become(USER) || prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0))
		_exit(1);
	if (gated) {
		if (prctl(PR_SET_NOSUID, 1, 0, 0, 0))
			_exit(1);
		/* In the tool's order. */
		if (have_nosuid_netns() && unshare(CLONE_NEWNET))
			_exit(1);
		if (have_network_gate() &&
		    prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0))
			_exit(1);
	}
	if (write(ready, "x", 1) != 1)
		_exit(1);
	pause();
	_exit(0);
}

/* The tool's four lines for pid, from what the kernel says directly. */
static void expect_status(struct __test_metadata *const _metadata,
			  pid_t pid, const char *out)
{
	static const char *const keys[] = { "NoNewPrivs", "NoSUID", "NoNetwork" };
	char p[16], val[32], line[128], path[64], ns[64];
	ssize_t len;
	size_t i;

	snprintf(p, sizeof(p), "%d", pid);
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		if (!proc_field(p, keys[i], val, sizeof(val)))
			snprintf(val, sizeof(val), "unknown");
		snprintf(line, sizeof(line), "%s:\t%s\n", keys[i], val);
		ASSERT_HAS(out, line);
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	len = readlink(path, ns, sizeof(ns) - 1);
	ASSERT_LT(0, len);
	snprintf(line, sizeof(line), "NetNS:\t%.*s\n", (int)len, ns);
	ASSERT_HAS(out, line);
}

TEST_F(tool, status_of_another_process)
{
	char pid_gated[16], pid_plain[16], ns[64], line[96];
	pid_t gated, plain;
	int ready[2], n = 0;
	struct run r;
	char c;

	ASSERT_EQ(0, pipe(ready));
	gated = start_target(_metadata, true, ready[1]);
	plain = start_target(_metadata, false, ready[1]);
	/* One byte from each; end of file if one failed. */
	close(ready[1]);
	while (n < 2 && read(ready[0], &c, 1) == 1)
		n++;
	ASSERT_EQ(2, n);
	snprintf(pid_gated, sizeof(pid_gated), "%d", gated);
	snprintf(pid_plain, sizeof(pid_plain), "%d", plain);
	own_netns(ns, sizeof(ns));
	snprintf(line, sizeof(line), "NetNS:\t%s\n", ns);

	/* Root, not nosuid: what is shown is the target's. */
	RUN(ROOT, &r, tool(), "--status", pid_gated);
	ASSERT_EXIT(0, r);
	expect_status(_metadata, gated, r.out);
	ASSERT_HAS(r.out, "NoNewPrivs:\t1\nNoSUID:\t1\n");
	if (have_network_gate())
		ASSERT_HAS(r.out, "NoNetwork:\t1\n");
	if (have_nosuid_netns())
		ASSERT_LACKS(r.out, line);

	/* Control: the sibling that set nothing. */
	RUN(ROOT, &r, tool(), "--status", pid_plain);
	ASSERT_EXIT(0, r);
	expect_status(_metadata, plain, r.out);
	ASSERT_HAS(r.out, "NoNewPrivs:\t0\nNoSUID:\t0\n");
	if (have_network_gate())
		ASSERT_HAS(r.out, "NoNetwork:\t0\n");
	ASSERT_HAS(r.out, line);

	kill(gated, SIGKILL);
	kill(plain, SIGKILL);
	ASSERT_EQ(gated, waitpid(gated, NULL, 0));
	ASSERT_EQ(plain, waitpid(plain, NULL, 0));
}

TEST_F(tool, no_network)
{
	struct run r;

	if (!have_network_gate()) {
		/* The gate is missing: nothing may run without it. */
		RUN(USER, &r, tool(), "--no-network", "/bin/touch", self->s.mark);
		ASSERT_EXIT(125, r);
		ASSERT_HAS(r.err, "nosuid: this kernel does not support PR_SET_NETWORK (EINVAL): is the disablenetwork LSM enabled (lsm=)?");
		ASSERT_RAN(&self->s, false);
		SKIP(return, "kernel lacks PR_SET_NETWORK: checked the refusal only");
	}

	RUN(USER, &r, tool(), "--no-network", self->s.helper, "sockets");
	ASSERT_EXIT(0, r);
	ASSERT_STREQ("AF_INET: EPERM\nAF_UNIX: ok\n", r.out);
	RUN(USER, &r, tool(), "--no-network", tool(), "--status");
	ASSERT_EXIT(0, r);
	ASSERT_HAS(r.out, "NoSUID:\t1\nNoNetwork:\t1\n");

	/* Control: nosuid alone leaves the network open. */
	RUN(USER, &r, tool(), self->s.helper, "sockets");
	ASSERT_EXIT(0, r);
	ASSERT_STREQ("AF_INET: ok\nAF_UNIX: ok\n", r.out);
	RUN(USER, &r, tool(), tool(), "--status");
	ASSERT_EXIT(0, r);
	ASSERT_HAS(r.out, "NoSUID:\t1\nNoNetwork:\t0\n");
}

#define NO_NETNS "kernel without unprivileged CLONE_NEWNET for nosuid tasks"

/* Without the feature nothing may run either. */
static void expect_no_netns(struct __test_metadata *const _metadata,
			    struct scratch *s)
{
	struct run r;

	RUN(USER, &r, tool(), "--netns", "/bin/touch", s->mark);
	ASSERT_EXIT(125, r);
	ASSERT_HAS(r.err, "nosuid: cannot create a network namespace: EPERM");
	ASSERT_RAN(s, false);
}

TEST_F(tool, netns)
{
	char ns[64], line[96];
	struct run r;

	if (!have_nosuid_netns()) {
		expect_no_netns(_metadata, &self->s);
		SKIP(return, NO_NETNS ": checked the refusal only");
	}
	own_netns(ns, sizeof(ns));
	snprintf(line, sizeof(line), "netns: %s\n", ns);

	RUN(USER, &r, tool(), "--netns", self->s.helper, "netns", "loopback");
	ASSERT_EXIT(0, r);
	ASSERT_HAS(r.out, "netns: net:[");
	ASSERT_LACKS(r.out, line);
	ASSERT_HAS(r.out, "lo: up\nudp: ok\n");

	/* Controls: nosuid alone keeps the namespace ... */
	RUN(USER, &r, tool(), self->s.helper, "netns");
	ASSERT_EXIT(0, r);
	ASSERT_STREQ(line, r.out);
	/* ... and a namespace made by root the usual way has lo down. */
	RUN(ROOT_NEWNET, &r, self->s.helper, "loopback");
	ASSERT_EXIT(0, r);
	ASSERT_HAS(r.out, "lo: down\n");
	ASSERT_LACKS(r.out, "udp: ok");
}

TEST_F(tool, netns_and_no_network)
{
	char ns[64], line[96];
	struct run r;

	if (!have_nosuid_netns())
		SKIP(return, NO_NETNS);
	if (!have_network_gate())
		SKIP(return, "kernel lacks PR_SET_NETWORK");
	own_netns(ns, sizeof(ns));
	snprintf(line, sizeof(line), "netns: %s\n", ns);

	RUN(USER, &r, tool(), "--no-network", "--netns", self->s.helper,
	    "netns", "sockets", "loopback");
	ASSERT_EXIT(0, r);
	ASSERT_HAS(r.out, "netns: net:[");
	ASSERT_LACKS(r.out, line);
	ASSERT_HAS(r.out, "AF_INET: EPERM\nAF_UNIX: ok\n");
	/* lo is up, but closed to the command. */
	ASSERT_HAS(r.out, "lo: up\nudp: EPERM\n");
}

TEST_F(tool, netns_refused_by_sysctl)
{
	struct run r;

	if (!have_nosuid_netns()) {
		expect_no_netns(_metadata, &self->s);
		SKIP(return, NO_NETNS ": checked the refusal only");
	}
	ASSERT_EQ(0, write_sysctl(NETNS_CLONE_SYSCTL, 0));
	RUN(USER, &r, tool(), "--netns", "/bin/touch", self->s.mark);
	ASSERT_EXIT(125, r);
	ASSERT_HAS(r.err, "nosuid: cannot create a network namespace: EPERM (kernel.nosuid_netns_clone is 0)");
	ASSERT_RAN(&self->s, false);

	/* Control: the administrator's switch on again. */
	ASSERT_EQ(0, write_sysctl(NETNS_CLONE_SYSCTL, 1));
	RUN(USER, &r, tool(), "--netns", "/bin/touch", self->s.mark);
	ASSERT_EXIT(0, r);
	ASSERT_RAN(&self->s, true);
}

TEST_F(tool, netns_refused_by_limit)
{
	struct run r;

	if (!have_nosuid_netns()) {
		expect_no_netns(_metadata, &self->s);
		SKIP(return, NO_NETNS ": checked the refusal only");
	}
	ASSERT_LE(0, self->s.max_netns);
	ASSERT_EQ(0, write_sysctl(MAX_NETNS_SYSCTL, 0));
	RUN(USER, &r, tool(), "--netns", "/bin/touch", self->s.mark);
	ASSERT_EXIT(125, r);
	ASSERT_HAS(r.err, "nosuid: cannot create a network namespace: ENOSPC (user.max_net_namespaces, 0, reached)");
	ASSERT_RAN(&self->s, false);

	/* Control: the limit as it was. */
	ASSERT_EQ(0, write_sysctl(MAX_NETNS_SYSCTL, self->s.max_netns));
	RUN(USER, &r, tool(), "--netns", "/bin/touch", self->s.mark);
	ASSERT_EXIT(0, r);
	ASSERT_RAN(&self->s, true);
}

TEST_HARNESS_MAIN
