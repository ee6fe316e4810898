// SPDX-License-Identifier: GPL-2.0
/*
 * A nosuid task does not reach a task that kept its rights through the
 * cgroup filesystem.  In a delegated cgroup v2 subtree (systemd's
 * user@.service, emulated here by a directory chowned to the test user)
 * the right to move a task or to set a limit comes from the ownership of
 * the files, not from the task being acted on: any program of the user may
 * move its own parent into a cgroup with pids.max at 1, so that the
 * parent's next fork() fails, or freeze it, kill it, or set its memory.max.
 * A sandbox that set PR_SET_NOSUID must not keep that reach.
 *
 * So a nosuid task's write to a cgroup file fails with EPERM when that
 * cgroup, or one below it, holds a task that is not nosuid, and so does
 * its write of the pid of a task that is not nosuid to cgroup.procs or
 * cgroup.threads.  mkdir, rmdir and reads are not affected, and cgroups
 * that hold only nosuid tasks stay the nosuid task's to manage.
 *
 * Each test forks P, which the test (root) puts in D/parent, and which
 * becomes the unprivileged user without the flag.  P forks C, which moves
 * itself to D/child, sets the flag in the "nosuid" variant, acts on P or
 * its cgroup, and exits with 0 or the errno.  The "control" variant does
 * the same without the flag: it must succeed and have its effect on P,
 * so that a broken fixture cannot pass for a working restriction.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "../kselftest_harness.h"

#define CG_MOUNT "/sys/fs/cgroup"

/*
 * Bound on every wait: what is waited for takes milliseconds, the bound
 * only keeps a broken kernel from hanging the test.
 */
#define WAIT_MS 10000
#define POLL_MS 10

/* Exit codes of P besides 0. */
#define P_CREDS 1	/* could not become the unprivileged user */
#define P_GO 2		/* the test never said go */
#define P_FORK 3	/* could not fork C */
#define P_WAIT 4	/* could not wait for C */

/* Exit codes of C besides 0 and the errno of the operation under test. */
#define C_MOVE 200	/* could not move itself to D/child */
#define C_NOSUID 201	/* PR_SET_NOSUID failed */
#define C_PREP 202	/* a step before the operation under test failed */
#define C_CHECK 203	/* read back another value than it wrote */

/* What P and C found, in a page shared with the test. */
struct report {
	int c_done;		/* C has stored c_ret */
	int c_ret;		/* 0, an errno or one of C_* */
	int c_errno;		/* the errno behind C_MOVE, C_NOSUID or C_PREP */
	char c_what[128];	/* the step C was at */
	int c_status;		/* C's wait status, as P saw it */
	int p_fork;		/* P's fork() after C: 0 or the errno */
	char p_cgroup[256];	/* P's cgroup after C, from /proc/self/cgroup */
};

/* What C works with. */
struct ctx {
	const char *dir;	/* D */
	struct report *rep;
	pid_t parent;		/* P */
};

static void sleep_ms(int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (ms % 1000) * 1000000L,
	};

	nanosleep(&ts, NULL);
}

/* Write @val to @dir/@rel with a single write(); 0 or the errno. */
static int cg_write(const char *dir, const char *rel, const char *val)
{
	char path[PATH_MAX];
	ssize_t len = strlen(val), n;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = write(fd, val, len);
	if (n < 0)
		ret = errno;
	else if (n != len)
		ret = EIO;
	close(fd);
	return ret;
}

/* Read @dir/@rel (or @rel alone if @dir is NULL), without the last '\n'. */
static int cg_read(const char *dir, const char *rel, char *buf, size_t size)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if (dir)
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
	else
		snprintf(path, sizeof(path), "%s", rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return errno;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/* Does the space-separated list @list hold @word? */
static bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ' || p[-1] == '\n') &&
		    (p[len] == '\0' || p[len] == ' ' || p[len] == '\n'))
			return true;
		p += len;
	}
	return false;
}

/* Does @dir/@rel have the line @line (as "frozen 1" in cgroup.events)? */
static bool has_line(const char *dir, const char *rel, const char *line)
{
	size_t len = strlen(line);
	char buf[1024];
	const char *p = buf;

	if (cg_read(dir, rel, buf, sizeof(buf)))
		return false;
	while (p) {
		if (!strncmp(p, line, len) && (p[len] == '\n' || !p[len]))
			return true;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

/* Wait, within WAIT_MS, for @dir/@rel to have the line @line. */
static bool wait_line(const char *dir, const char *rel, const char *line)
{
	int i;

	for (i = 0; i < WAIT_MS / POLL_MS; i++) {
		if (has_line(dir, rel, line))
			return true;
		sleep_ms(POLL_MS);
	}
	return false;
}

/* waitpid() for @pid within WAIT_MS: did it end? */
static bool wait_bounded(pid_t pid, int *status)
{
	pid_t ret;
	int i;

	for (i = 0; i < WAIT_MS / POLL_MS; i++) {
		ret = waitpid(pid, status, WNOHANG);
		if (ret == pid)
			return true;
		if (ret < 0 && errno != EINTR)
			return false;
		sleep_ms(POLL_MS);
	}
	return false;
}

/*
 * Call @fn on every cgroup of the tree at @path, children before their
 * parent (rmdir needs that order); the first error is returned.
 */
static int walk_cgroups(const char *path, const char *arg,
			int (*fn)(const char *path, const char *arg))
{
	char sub[PATH_MAX];
	struct dirent *de;
	int ret = 0, err;
	DIR *d;

	d = opendir(path);
	if (!d)
		return errno;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") ||
		    !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		err = walk_cgroups(sub, arg, fn);
		if (!ret)
			ret = err;
	}
	closedir(d);
	err = fn(path, arg);
	return ret ? ret : err;
}

/* Thaw the cgroup and kill what it holds: frozen tasks still die. */
static int thaw_and_kill(const char *path, const char *unused)
{
	char procs[PATH_MAX];
	FILE *f;
	int pid;

	cg_write(path, "cgroup.freeze", "0");
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
	f = fopen(procs, "re");
	if (!f)
		return errno;
	while (fscanf(f, "%d", &pid) == 1)
		kill(pid, SIGKILL);
	fclose(f);
	return 0;
}

/* Move what the cgroup still holds to the cgroup @root. */
static int evict(const char *path, const char *root)
{
	char procs[PATH_MAX], pid[16];
	FILE *f;
	int n;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
	f = fopen(procs, "re");
	if (!f)
		return errno;
	while (fscanf(f, "%d", &n) == 1) {
		snprintf(pid, sizeof(pid), "%d", n);
		cg_write(root, "cgroup.procs", pid);
	}
	fclose(f);
	return 0;
}

static int remove_cgroup(const char *path, const char *unused)
{
	return rmdir(path) && errno != ENOENT ? errno : 0;
}

/* chown the directory and every file in it to the test user. */
static int chown_dir(const char *path)
{
	struct dirent *de;
	int ret = 0;
	DIR *d;

	if (chown(path, USER_UID, USER_GID))
		return errno;
	d = opendir(path);
	if (!d)
		return errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fchownat(dirfd(d), de->d_name, USER_UID, USER_GID,
			     AT_SYMLINK_NOFOLLOW)) {
			ret = errno;
			break;
		}
	}
	closedir(d);
	return ret;
}

static bool fs_supported(const char *name)
{
	char line[256], *fs;
	bool found = false;
	FILE *f;

	f = fopen("/proc/filesystems", "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		/* "nodev\tcgroup2\n" */
		line[strcspn(line, "\n")] = '\0';
		fs = strrchr(line, '\t');
		found = fs && !strcmp(fs + 1, name);
	}
	fclose(f);
	return found;
}

/*
 * A cgroup2 mount point, CG_MOUNT first; false if there is none.  A path
 * too long for @root (escapes and all) is skipped.
 */
static bool find_cgroup2(char *root, size_t size)
{
	char line[PATH_MAX + 256], mnt[256], type[64];
	bool found = false;
	FILE *f;

	f = fopen("/proc/self/mounts", "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %255s %63s", mnt, type) != 2 ||
		    strcmp(type, "cgroup2"))
			continue;
		if (!found || !strcmp(mnt, CG_MOUNT))
			snprintf(root, size, "%s", mnt);
		found = true;
	}
	fclose(f);
	return found;
}

FIXTURE(cgroup)
{
	char root[256];		/* where cgroup2 is mounted */
	char dir[320];		/* D, the subtree delegated to the user */
	bool mounted;		/* by us: unmounted in teardown */
	struct report *rep;	/* the test's, shared with P and C */
};

FIXTURE_VARIANT(cgroup)
{
	/* C sets PR_SET_NOSUID before it acts; without, it is the control. */
	bool nosuid;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(cgroup, nosuid) {
	.nosuid = true,
};

FIXTURE_VARIANT_ADD(cgroup, control) {
	.nosuid = false,
};

/* clang-format on */

static void undo_mount(FIXTURE_DATA(cgroup) *self)
{
	if (self->mounted)
		umount2(self->root, 0);
	self->mounted = false;
}

/*
 * Remove D, after killing what is left in it.  Killed tasks leave their
 * cgroup as they exit, before they are reaped; what still does not is
 * moved out.
 */
static int remove_tree(FIXTURE_DATA(cgroup) *self)
{
	if (!self->dir[0] || access(self->dir, F_OK))
		return 0;
	walk_cgroups(self->dir, NULL, thaw_and_kill);
	cg_write(self->dir, "cgroup.kill", "1");
	if (!wait_line(self->dir, "cgroup.events", "populated 0"))
		walk_cgroups(self->dir, self->root, evict);
	return walk_cgroups(self->dir, NULL, remove_cgroup);
}

/*
 * D with the pids and memory controllers for its children, D/parent and
 * D/child, all owned by the user as systemd leaves a delegated subtree.
 * 0 or the errno; @what is set to the step that failed.
 */
static int make_tree(FIXTURE_DATA(cgroup) *self, const char **what)
{
	char path[PATH_MAX];
	int ret;

	*what = "mkdir D";
	if (mkdir(self->dir, 0755))
		return errno;
	*what = "enable pids and memory in D/cgroup.subtree_control";
	ret = cg_write(self->dir, "cgroup.subtree_control", "+pids +memory");
	if (ret)
		return ret;
	*what = "mkdir D/parent";
	snprintf(path, sizeof(path), "%s/parent", self->dir);
	if (mkdir(path, 0755))
		return errno;
	*what = "chown D/parent";
	ret = chown_dir(path);
	if (ret)
		return ret;
	*what = "mkdir D/child";
	snprintf(path, sizeof(path), "%s/child", self->dir);
	if (mkdir(path, 0755))
		return errno;
	*what = "chown D/child";
	ret = chown_dir(path);
	if (ret)
		return ret;
	*what = "chown D";
	return chown_dir(self->dir);
}

FIXTURE_SETUP(cgroup)
{
	const char *what = NULL;
	char buf[256];
	int ret;

	if (prctl(PR_GET_NOSUID, 0, 0, 0, 0) < 0 && errno == EINVAL)
		SKIP(return, "kernel lacks PR_SET_NOSUID");
	if (geteuid() != 0)
		SKIP(return, "must run as root to delegate a cgroup");
	if (!fs_supported("cgroup2"))
		SKIP(return, "kernel has no cgroup2 (CONFIG_CGROUPS)");

	self->rep = mmap(NULL, sizeof(*self->rep), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->rep);
	/* So that C, when P is killed, is ours to reap, not init's. */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0));

	if (!find_cgroup2(self->root, sizeof(self->root))) {
		snprintf(self->root, sizeof(self->root), "%s", CG_MOUNT);
		mkdir("/sys", 0755);
		mkdir("/sys/fs", 0755);
		mkdir(CG_MOUNT, 0755);
		ret = mount("cgroup2", CG_MOUNT, "cgroup2", 0, NULL) ? errno : 0;
		ASSERT_EQ(0, ret)
		{
			TH_LOG("mount cgroup2 on %s: %s", CG_MOUNT,
			       strerror(ret));
		}
		self->mounted = true;
	}

	ret = cg_read(self->root, "cgroup.controllers", buf, sizeof(buf));
	if (ret) {
		undo_mount(self);
		ASSERT_EQ(0, ret)
		{
			TH_LOG("read %s/cgroup.controllers: %s", self->root,
			       strerror(ret));
		}
	}
	/* Bound to a v1 hierarchy, a controller is missing here too. */
	if (!has_word(buf, "pids")) {
		undo_mount(self);
		SKIP(return, "no pids controller in cgroup2 (CONFIG_CGROUP_PIDS)");
	}
	if (!has_word(buf, "memory")) {
		undo_mount(self);
		SKIP(return, "no memory controller in cgroup2 (CONFIG_MEMCG)");
	}
	ret = cg_write(self->root, "cgroup.subtree_control", "+pids +memory");
	if (ret)
		undo_mount(self);
	ASSERT_EQ(0, ret)
	{
		TH_LOG("enable pids and memory in %s: %s", self->root,
		       strerror(ret));
	}

	snprintf(self->dir, sizeof(self->dir), "%s/nosuid_test.%d",
		 self->root, getpid());
	ret = make_tree(self, &what);
	if (ret) {
		remove_tree(self);
		undo_mount(self);
	}
	ASSERT_EQ(0, ret)
	{
		TH_LOG("%s (%s): %s", what, self->dir, strerror(ret));
	}
}

/*
 * The harness runs a parent's teardown even when a failed ASSERT ended the
 * test process: a frozen P, or one in a limited cgroup, is not left behind.
 * The report page may not be mapped here.
 */
FIXTURE_TEARDOWN_PARENT(cgroup)
{
	int ret = remove_tree(self);

	/*
	 * Not in an EXPECT block: after a failed ASSERT, the harness would
	 * run it even for a passing check.
	 */
	if (ret)
		TH_LOG("cannot remove %s: %s", self->dir, strerror(ret));
	EXPECT_EQ(0, ret);
	undo_mount(self);
}

/* In C: cg_write() in D, noting the step for the test's log. */
static int c_write(const struct ctx *ctx, const char *rel, const char *val)
{
	snprintf(ctx->rep->c_what, sizeof(ctx->rep->c_what),
		 "write \"%s\" to D/%s", val, rel);
	return cg_write(ctx->dir, rel, val);
}

/* In C: a step before the operation under test failed with @err. */
static int c_prep_failed(const struct ctx *ctx, int err)
{
	ctx->rep->c_errno = err;
	return C_PREP;
}

/* In C: @ret is its result, stored where the test sees it if P dies. */
static int c_done(const struct ctx *ctx, int ret)
{
	ctx->rep->c_ret = ret;
	__atomic_store_n(&ctx->rep->c_done, 1, __ATOMIC_SEQ_CST);
	return ret;
}

static int run_c(const struct ctx *ctx, bool nosuid,
		 int (*op)(const struct ctx *ctx))
{
	int ret;

	/* D, their common ancestor, is the user's: allowed to everyone. */
	ret = c_write(ctx, "child/cgroup.procs", "0");
	if (ret) {
		ctx->rep->c_errno = ret;
		return C_MOVE;
	}
	if (nosuid) {
		snprintf(ctx->rep->c_what, sizeof(ctx->rep->c_what),
			 "PR_SET_NOSUID");
		if (prctl(PR_SET_NOSUID, 1, 0, 0, 0)) {
			ctx->rep->c_errno = errno;
			return C_NOSUID;
		}
		if (prctl(PR_GET_NOSUID, 0, 0, 0, 0) != 1) {
			ctx->rep->c_errno = 0;
			return C_NOSUID;
		}
	}
	return op(ctx);
}

/* In P: fork() and reap the child; 0 or the errno. */
static int try_fork(void)
{
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(0);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return 0;
}

/* In P: its v2 cgroup path, from the "0::" line of /proc/self/cgroup. */
static void own_cgroup(char *buf, size_t size)
{
	char line[256];
	FILE *f;

	snprintf(buf, size, "?");
	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(buf, size, "%s", line + 3);
	}
	fclose(f);
}

static int run_p(struct ctx *ctx, int go, bool nosuid,
		 int (*op)(const struct ctx *ctx), bool fork_after)
{
	int status;
	pid_t pid;
	char c;

	/* The user, with no privilege, and not nosuid. */
	if (setgroups(0, NULL) || setresgid(USER_GID, USER_GID, USER_GID) ||
	    setresuid(USER_UID, USER_UID, USER_UID))
		return P_CREDS;
	/* Wait until the test has put us in D/parent. */
	if (read(go, &c, 1) != 1)
		return P_GO;
	close(go);

	ctx->parent = getpid();
	pid = fork();
	if (pid < 0)
		return P_FORK;
	if (pid == 0)
		_exit(c_done(ctx, run_c(ctx, nosuid, op)));
	while (waitpid(pid, &status, 0) != pid)
		if (errno != EINTR)
			return P_WAIT;
	ctx->rep->c_status = status;
	if (fork_after)
		ctx->rep->p_fork = try_fork();
	own_cgroup(ctx->rep->p_cgroup, sizeof(ctx->rep->p_cgroup));
	return 0;
}

/*
 * Start P in D/parent, which starts C with @op; returns P's pid.  With
 * @fork_after, P tries a fork() once C is gone, reported in p_fork.
 */
static pid_t start(struct __test_metadata *const _metadata,
		   FIXTURE_DATA(cgroup) *self,
		   const FIXTURE_VARIANT(cgroup) *variant,
		   int (*op)(const struct ctx *ctx), bool fork_after)
{
	struct ctx ctx = { .dir = self->dir, .rep = self->rep };
	char pid_str[16];
	int go[2], ret;
	pid_t pid;

	memset(self->rep, 0, sizeof(*self->rep));
	self->rep->c_ret = -1;
	self->rep->p_fork = -1;
	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(go[1]);
		_exit(run_p(&ctx, go[0], variant->nosuid, op, fork_after));
	}
	close(go[0]);
	snprintf(pid_str, sizeof(pid_str), "%d", pid);
	ret = cg_write(self->dir, "parent/cgroup.procs", pid_str);
	if (ret) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	ASSERT_EQ(0, ret)
	{
		TH_LOG("move P to D/parent: %s", strerror(ret));
	}
	ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	return pid;
}

static const char *p_error(int code)
{
	switch (code) {
	case P_CREDS:
		return "could not become the user";
	case P_GO:
		return "no go from the test";
	case P_FORK:
		return "could not fork C";
	case P_WAIT:
		return "could not wait for C";
	}
	return "unknown exit code";
}

/* Wait for P within the bound; it is killed if it does not end. */
static void wait_p(struct __test_metadata *const _metadata, pid_t pid,
		   int *status)
{
	bool ended = wait_bounded(pid, status);

	if (!ended)
		kill(pid, SIGKILL);
	ASSERT_TRUE(ended)
	{
		TH_LOG("P did not end within %d ms", WAIT_MS);
	}
}

/* P ran C to its end and reported: it was not stopped by C's operation. */
static void check_p(struct __test_metadata *const _metadata,
		    FIXTURE_DATA(cgroup) *self, int status)
{
	const struct report *rep = self->rep;

	ASSERT_TRUE(WIFEXITED(status))
	{
		TH_LOG("P: wait status %#x", status);
	}
	ASSERT_EQ(0, WEXITSTATUS(status))
	{
		TH_LOG("P: %s", p_error(WEXITSTATUS(status)));
	}
	ASSERT_TRUE(WIFEXITED(rep->c_status))
	{
		TH_LOG("C: wait status %#x", rep->c_status);
	}
	ASSERT_EQ(rep->c_ret, WEXITSTATUS(rep->c_status));
}

/* C's operation ended with @expected (an errno, or 0). */
static void check_c(struct __test_metadata *const _metadata,
		    FIXTURE_DATA(cgroup) *self, int expected)
{
	const struct report *rep = self->rep;
	int i;

	for (i = 0; i < WAIT_MS / POLL_MS; i++) {
		if (__atomic_load_n(&rep->c_done, __ATOMIC_SEQ_CST))
			break;
		sleep_ms(POLL_MS);
	}
	ASSERT_TRUE(__atomic_load_n(&rep->c_done, __ATOMIC_SEQ_CST))
	{
		TH_LOG("C did not end within %d ms", WAIT_MS);
	}
	ASSERT_EQ(expected, rep->c_ret)
	{
		switch (rep->c_ret) {
		case C_MOVE:
		case C_NOSUID:
		case C_PREP:
			TH_LOG("C failed before its operation, at %s: %s",
			       rep->c_what, strerror(rep->c_errno));
			break;
		case C_CHECK:
			TH_LOG("C read back another value after %s",
			       rep->c_what);
			break;
		default:
			TH_LOG("C at %s: %s", rep->c_what,
			       strerror(rep->c_ret));
		}
	}
}

/* Refused to a nosuid C, granted to the control. */
static int expected(const FIXTURE_VARIANT(cgroup) *variant)
{
	return variant->nosuid ? EPERM : 0;
}

/* P's cgroup is D/@name. */
static bool p_in(FIXTURE_DATA(cgroup) *self, const char *name)
{
	const char *p = self->rep->p_cgroup;
	char tail[PATH_MAX];
	size_t len, plen = strlen(p);

	/* The path is relative to our cgroup namespace: compare the end. */
	snprintf(tail, sizeof(tail), "%s/%s", strrchr(self->dir, '/'), name);
	len = strlen(tail);
	return plen >= len && !strcmp(p + plen - len, tail);
}

/*
 * C sets pids.max to 1 in its own cgroup, which holds only itself, then
 * moves P there: P could not fork any more.
 */
static int move_parent_into_limited(const struct ctx *ctx)
{
	char pid[16];
	int ret;

	/* Granted even when nosuid: D/child holds C alone. */
	ret = c_write(ctx, "child/pids.max", "1");
	if (ret)
		return c_prep_failed(ctx, ret);
	snprintf(pid, sizeof(pid), "%d", ctx->parent);
	return c_write(ctx, "child/cgroup.procs", pid);
}

TEST_F(cgroup, move_parent_into_limited)
{
	const struct report *rep = self->rep;
	int status;
	pid_t pid;

	pid = start(_metadata, self, variant, move_parent_into_limited, true);
	wait_p(_metadata, pid, &status);
	check_p(_metadata, self, status);
	check_c(_metadata, self, expected(variant));
	if (variant->nosuid) {
		/* P stayed where it was, and forks. */
		EXPECT_TRUE(p_in(self, "parent"))
		{
			TH_LOG("P is in %s", rep->p_cgroup);
		}
		EXPECT_EQ(0, rep->p_fork)
		{
			TH_LOG("P's fork: %s", strerror(rep->p_fork));
		}
	} else {
		/* Moved into the limit, P, as C's parent, cannot fork. */
		EXPECT_TRUE(p_in(self, "child"))
		{
			TH_LOG("P is in %s", rep->p_cgroup);
		}
		EXPECT_EQ(EAGAIN, rep->p_fork)
		{
			TH_LOG("P's fork: %s", strerror(rep->p_fork));
		}
	}
}

/* P alone is charged in D/parent: pids.max at 1 leaves it no fork. */
static int limit_parent_pids(const struct ctx *ctx)
{
	return c_write(ctx, "parent/pids.max", "1");
}

TEST_F(cgroup, limit_parent_pids)
{
	const struct report *rep = self->rep;
	char buf[64];
	int status;
	pid_t pid;

	pid = start(_metadata, self, variant, limit_parent_pids, true);
	wait_p(_metadata, pid, &status);
	check_p(_metadata, self, status);
	check_c(_metadata, self, expected(variant));
	ASSERT_EQ(0, cg_read(self->dir, "parent/pids.max", buf, sizeof(buf)));
	EXPECT_STREQ(variant->nosuid ? "max" : "1", buf);
	EXPECT_EQ(variant->nosuid ? 0 : EAGAIN, rep->p_fork)
	{
		TH_LOG("P's fork: %s", strerror(rep->p_fork));
	}
}

/* Only the limit is looked at: P allocates nothing, nothing is reclaimed. */
static int limit_parent_memory(const struct ctx *ctx)
{
	return c_write(ctx, "parent/memory.max", "8M");
}

TEST_F(cgroup, limit_parent_memory)
{
	char buf[64];
	int status;
	pid_t pid;

	pid = start(_metadata, self, variant, limit_parent_memory, false);
	wait_p(_metadata, pid, &status);
	check_p(_metadata, self, status);
	check_c(_metadata, self, expected(variant));
	ASSERT_EQ(0, cg_read(self->dir, "parent/memory.max", buf,
			     sizeof(buf)));
	EXPECT_STREQ(variant->nosuid ? "max" : "8388608", buf);
}

static int freeze_parent(const struct ctx *ctx)
{
	return c_write(ctx, "parent/cgroup.freeze", "1");
}

TEST_F(cgroup, freeze_parent)
{
	char buf[64];
	int status;
	pid_t pid;

	pid = start(_metadata, self, variant, freeze_parent, false);
	/* C is in D/child, not frozen: it ends in any case. */
	check_c(_metadata, self, expected(variant));
	if (!variant->nosuid) {
		/*
		 * P freezes in its wait for C, asynchronously.  Whether or
		 * not it did, thaw it so that it can report.
		 */
		EXPECT_TRUE(wait_line(self->dir, "parent/cgroup.events",
				      "frozen 1"))
		{
			TH_LOG("D/parent not frozen within %d ms", WAIT_MS);
		}
		ASSERT_EQ(0, cg_write(self->dir, "parent/cgroup.freeze", "0"));
	}
	/* Refused, P was never frozen: it ends without being thawed. */
	wait_p(_metadata, pid, &status);
	check_p(_metadata, self, status);
	ASSERT_EQ(0, cg_read(self->dir, "parent/cgroup.freeze", buf,
			     sizeof(buf)));
	EXPECT_STREQ("0", buf);
}

/* Reap, within WAIT_MS, a child left to us by its parent's death. */
static void reap_orphan(void)
{
	int i;

	for (i = 0; i < WAIT_MS / POLL_MS; i++) {
		if (waitpid(-1, NULL, WNOHANG) != 0)
			return;
		sleep_ms(POLL_MS);
	}
}

static int kill_parent(const struct ctx *ctx)
{
	return c_write(ctx, "parent/cgroup.kill", "1");
}

TEST_F(cgroup, kill_parent)
{
	int status;
	pid_t pid;

	pid = start(_metadata, self, variant, kill_parent, false);
	wait_p(_metadata, pid, &status);
	check_c(_metadata, self, expected(variant));
	if (variant->nosuid) {
		/* P lived on to reap C and report. */
		check_p(_metadata, self, status);
	} else {
		/* Killed while waiting for C. */
		ASSERT_TRUE(WIFSIGNALED(status))
		{
			TH_LOG("P: wait status %#x", status);
		}
		EXPECT_EQ(SIGKILL, WTERMSIG(status));
		/* C, which killed P, was reparented to us. */
		reap_orphan();
	}
}

/* In C: move the task @pid by writing it to D/@rel. */
static int c_move(const struct ctx *ctx, const char *rel, pid_t pid)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", pid);
	return c_write(ctx, rel, buf);
}

/*
 * Not a blanket ban: C creates D/child/sub, moves itself and a child of
 * its own (nosuid too, in the nosuid variant) there, enables pids in
 * D/child and sets and resets sub's pids.max.  None of these cgroups holds
 * a task that is not nosuid, so all of it is granted in both variants.
 */
static int manage_own(const struct ctx *ctx)
{
	char buf[64], path[PATH_MAX];
	int gate[2], ret;
	pid_t pid;

	if (pipe2(gate, O_CLOEXEC))
		return c_prep_failed(ctx, errno);
	pid = fork();
	if (pid < 0)
		return c_prep_failed(ctx, errno);
	if (pid == 0) {
		/* Stay until C is done: EOF on the gate. */
		close(gate[1]);
		while (read(gate[0], buf, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(gate[0]);

	snprintf(ctx->rep->c_what, sizeof(ctx->rep->c_what),
		 "mkdir D/child/sub");
	snprintf(path, sizeof(path), "%s/child/sub", ctx->dir);
	ret = mkdir(path, 0755) ? errno : 0;
	if (!ret)
		ret = c_move(ctx, "child/sub/cgroup.procs", getpid());
	if (!ret)
		ret = c_move(ctx, "child/sub/cgroup.procs", pid);
	/* D/child is empty now, as enabling a controller needs. */
	if (!ret)
		ret = c_write(ctx, "child/cgroup.subtree_control", "+pids");
	if (!ret)
		ret = c_write(ctx, "child/sub/pids.max", "5");
	if (!ret) {
		ret = cg_read(ctx->dir, "child/sub/pids.max", buf, sizeof(buf));
		if (!ret && strcmp(buf, "5"))
			ret = C_CHECK;
	}
	if (!ret)
		ret = c_write(ctx, "child/sub/pids.max", "max");

	close(gate[1]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return ret;
}

TEST_F(cgroup, nosuid_keeps_its_own)
{
	char buf[64];
	int status;
	pid_t pid;

	pid = start(_metadata, self, variant, manage_own, false);
	wait_p(_metadata, pid, &status);
	check_p(_metadata, self, status);
	check_c(_metadata, self, 0);
	ASSERT_EQ(0, cg_read(self->dir, "child/sub/pids.max", buf,
			     sizeof(buf)));
	EXPECT_STREQ("max", buf);
}

/*
 * D/cgroup.subtree_control: D holds no task itself, but P is below it.
 * "+pids" is already there: for the control, a write that changes nothing.
 */
static int enable_pids_in_d(const struct ctx *ctx)
{
	return c_write(ctx, "cgroup.subtree_control", "+pids");
}

TEST_F(cgroup, subtree_holds_other)
{
	int status;
	pid_t pid;

	pid = start(_metadata, self, variant, enable_pids_in_d, false);
	wait_p(_metadata, pid, &status);
	check_p(_metadata, self, status);
	check_c(_metadata, self, expected(variant));
}

/* clone3()'s arguments up to the cgroup field (CLONE_ARGS_SIZE_VER2). */
struct clone_args_v2 {
	__aligned_u64 flags, pidfd, child_tid, parent_tid, exit_signal;
	__aligned_u64 stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/*
 * clone3(CLONE_INTO_CGROUP) into D/parent: the shorthand for writing the
 * child's pid to D/parent/cgroup.procs, next to P.
 */
static int clone_into_parent_cgroup(const struct ctx *ctx)
{
	struct clone_args_v2 args = { .exit_signal = SIGCHLD };
	char path[PATH_MAX];
	int fd, status;
	long pid;

	snprintf(path, sizeof(path), "%s/parent", ctx->dir);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return c_prep_failed(ctx, errno);
	snprintf(ctx->rep->c_what, sizeof(ctx->rep->c_what),
		 "clone3(CLONE_INTO_CGROUP) into D/parent");
	args.flags = CLONE_INTO_CGROUP;
	args.cgroup = fd;
	pid = syscall(__NR_clone3, &args, sizeof(args));
	if (pid == 0)
		_exit(0);
	close(fd);
	if (pid < 0)
		return errno;
	return waitpid(pid, &status, 0) == pid ? 0 : c_prep_failed(ctx, errno);
}

TEST_F(cgroup, clone_into_parent_cgroup)
{
	int status;
	pid_t pid;

	pid = start(_metadata, self, variant, clone_into_parent_cgroup, false);
	wait_p(_metadata, pid, &status);
	check_p(_metadata, self, status);
	check_c(_metadata, self, expected(variant));
}

TEST_HARNESS_MAIN
