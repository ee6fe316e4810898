/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixtures shared by nosuid_test.c and tsync_test.c: the unprivileged user,
 * helper programs installed on /tmp with the owner and mode a test needs,
 * and their reports.  Include after kselftest_harness.h.
 */
#ifndef NOSUID_FIXTURES_H
#define NOSUID_FIXTURES_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

#define REPORT_SIZE 1024

/*
 * Skip only when the feature is absent (an unknown prctl option is
 * EINVAL), and when not root, which the fixtures need.
 */
#define REQUIRE_NOSUID_AND_ROOT()                                           \
	do {                                                                \
		if (prctl(PR_GET_NOSUID, 0, 0, 0, 0) < 0 && errno == EINVAL) \
			SKIP(return, "kernel lacks PR_SET_NOSUID");         \
		if (geteuid() != 0)                                         \
			SKIP(return, "must run as root to build fixtures"); \
	} while (0)

static int set_nosuid(void)
{
	return prctl(PR_SET_NOSUID, 1, 0, 0, 0);
}

static int get_nosuid(void)
{
	return prctl(PR_GET_NOSUID, 0, 0, 0, 0);
}

static int get_nnp(void)
{
	return prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
}

static void drop_to_user(struct __test_metadata *const _metadata)
{
	ASSERT_EQ(0, setgroups(0, NULL));
	ASSERT_EQ(0, setresgid(USER_GID, USER_GID, USER_GID));
	ASSERT_EQ(0, setresuid(USER_UID, USER_UID, USER_UID));
	/*
	 * The uid change made us undumpable, which alone would refuse the
	 * ptrace controls: undo it.
	 */
	ASSERT_EQ(0, prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
}

/* The value of "key=" in a helper's report, or LLONG_MIN if missing. */
static long long report_get(const char *report, const char *key)
{
	const size_t len = strlen(key);
	const char *p = report;

	while (p && *p) {
		if (!strncmp(p, key, len) && p[len] == '=')
			return strtoll(p + len + 1, NULL, 0);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return LLONG_MIN;
}

/*
 * Copy the helper program @name, which sits next to this test, to @dst with
 * the given owner and mode.  /tmp is a tmpfs with xattrs, where setuid bits
 * and file capabilities work; the install directory may be neither.
 */
static void install_helper(struct __test_metadata *const _metadata,
			   const char *name, const char *dst, mode_t mode,
			   uid_t uid, gid_t gid)
{
	char src[PATH_MAX], buf[4096];
	ssize_t n, len;
	int in, out;

	len = readlink("/proc/self/exe", src, sizeof(src) - 1);
	ASSERT_LT(0, len);
	src[len] = '\0';
	ASSERT_NE(NULL, strrchr(src, '/'));
	len = strrchr(src, '/') + 1 - src;
	ASSERT_GT(sizeof(src), len + strlen(name));
	snprintf(src + len, sizeof(src) - len, "%s", name);

	in = open(src, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, in)
	{
		TH_LOG("helper %s: %s", src, strerror(errno));
	}
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	ASSERT_LE(0, out);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ASSERT_EQ(n, write(out, buf, n));
	ASSERT_EQ(0, n);
	ASSERT_EQ(0, fchown(out, uid, gid));
	ASSERT_EQ(0, fchmod(out, mode));
	close(out);
	close(in);
}

/* A directory on /tmp that the unprivileged user may traverse. */
static void make_dir(struct __test_metadata *const _metadata, char dir[64])
{
	snprintf(dir, 64, "/tmp/nosuid_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, chmod(dir, 0755));
}

static void remove_dir(const char *dir)
{
	struct dirent *de;
	DIR *d;

	if (!dir[0])
		return;
	d = opendir(dir);
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
}

static int count_threads(void)
{
	struct dirent *de;
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	if (d)
		closedir(d);
	return n;
}

/*
 * Waits for a byte on @fd.  Dies with the test: if a check fails before
 * the byte is sent, nothing else would end it (a CLONE_FILES child even
 * holds the write end), and it would hold the runner's output open.
 */
static int wait_in_clone(void *fd)
{
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	return read(*(int *)fd, &c, 1) == 1 ? 0 : 1;
}

#endif /* NOSUID_FIXTURES_H */
