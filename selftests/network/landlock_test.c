// SPDX-License-Identifier: GPL-2.0
/*
 * The gate stacked with Landlock.  The gate leaves AF_UNIX pathname
 * sockets open by design: they are files, guarded by their permissions.
 * A sandbox that wants them closed too stacks Landlock's
 * LANDLOCK_ACCESS_FS_RESOLVE_UNIX (ABI 9) on top: both apply, neither
 * undoes the other.
 */

#include <linux/landlock.h>
#include <sys/syscall.h>

#include "common.h"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_restrict_self 446
#endif
#ifndef LANDLOCK_ACCESS_FS_RESOLVE_UNIX
#define LANDLOCK_ACCESS_FS_RESOLVE_UNIX 0x10000ULL
#endif

/*
 * Restricts the caller to a Landlock domain that handles pathname AF_UNIX
 * lookups and allows none.  Returns 0, or the errno of the ruleset (EINVAL
 * when Landlock predates the access right, EOPNOTSUPP when it is off).
 */
static int landlock_deny_unix_paths(void)
{
	const struct landlock_ruleset_attr attr = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_RESOLVE_UNIX,
	};
	int fd = syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
	int err = 0;

	if (fd < 0)
		return errno;
	if (syscall(__NR_landlock_restrict_self, fd, 0))
		err = errno;
	close(fd);
	return err;
}

FIXTURE(stacked)
{
	char dir[64];
	struct sockaddr_un path;
	int listener;
};

/* As root: a pathname stream listener anyone may connect to. */
FIXTURE_SETUP(stacked)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/landlock-%d", getpid());
	ASSERT_EQ(0, mkdir(self->dir, 0777));
	ASSERT_EQ(0, chmod(self->dir, 0777));
	self->path.sun_family = AF_UNIX;
	snprintf(self->path.sun_path, sizeof(self->path.sun_path), "%s/srv",
		 self->dir);
	self->listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, self->listener);
	ASSERT_EQ(0, bind(self->listener, (struct sockaddr *)&self->path,
			  sizeof(self->path)));
	ASSERT_EQ(0, chmod(self->path.sun_path, 0777));
	ASSERT_EQ(0, listen(self->listener, 8));
}

FIXTURE_TEARDOWN(stacked)
{
	close(self->listener);
	unlink(self->path.sun_path);
	rmdir(self->dir);
}

static int try_unix_connect(const struct sockaddr_un *path)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int err = 0;

	if (fd < 0)
		return errno;
	if (connect(fd, (const struct sockaddr *)path, sizeof(*path)))
		err = errno;
	close(fd);
	return err;
}

/* Control: behind the gate alone, the pathname socket is reachable. */
TEST_F(stacked, gate_alone_allows_unix_path)
{
	become_user(_metadata);
	CLOSE_GATE();
	EXPECT_EQ(0, try_unix_connect(&self->path));
	EXPECT_EQ(-1, socket(AF_INET, SOCK_STREAM, 0));
	EXPECT_EQ(EPERM, errno);
}

/* Landlock closes what the gate leaves open; the gate stays closed. */
TEST_F(stacked, landlock_closes_unix_path_behind_gate)
{
	int err;

	become_user(_metadata);
	CLOSE_GATE();
	err = landlock_deny_unix_paths();
	if (err == EINVAL || err == EOPNOTSUPP || err == ENOSYS)
		SKIP(return, "Landlock without LANDLOCK_ACCESS_FS_RESOLVE_UNIX (%s)",
		     strerror(err));
	ASSERT_EQ(0, err);
	EXPECT_EQ(EACCES, try_unix_connect(&self->path));
	EXPECT_EQ(-1, socket(AF_INET, SOCK_STREAM, 0));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(PR_NETWORK_OFF, prctl(PR_GET_NETWORK, 0, 0, 0, 0));
}

/* The other order: Landlock first, then the gate closes on top. */
TEST_F(stacked, gate_closes_after_landlock)
{
	int err;

	become_user(_metadata);
	err = landlock_deny_unix_paths();
	if (err == EINVAL || err == EOPNOTSUPP || err == ENOSYS)
		SKIP(return, "Landlock without LANDLOCK_ACCESS_FS_RESOLVE_UNIX (%s)",
		     strerror(err));
	ASSERT_EQ(0, err);
	/* Control for the gate: Landlock alone leaves AF_INET alone. */
	err = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, err);
	close(err);
	CLOSE_GATE();
	EXPECT_EQ(EACCES, try_unix_connect(&self->path));
	EXPECT_EQ(-1, socket(AF_INET, SOCK_DGRAM, 0));
	EXPECT_EQ(EPERM, errno);
}

TEST_HARNESS_MAIN
