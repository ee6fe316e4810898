// SPDX-License-Identifier: GPL-2.0
/*
 * Namespace file handles (7.x): name_to_handle_at() on /proc/self/ns/net
 * gives a handle that open_by_handle_at(FD_NSFS_ROOT, ...) turns back into
 * a namespace fd, without any path through /proc.  A nosuid task that made
 * a network namespace of its own must not get the old one back this way:
 * with an fd for it, a socket could be made there (setns() is refused
 * anyway without CAP_SYS_ADMIN).  nsfs refuses to open a namespace the
 * caller is not in unless it may see all namespaces; these tests hold it
 * to that, with controls that the handle works where it should.
 */

#include "common.h"

#ifndef FD_NSFS_ROOT
#define FD_NSFS_ROOT -10003
#endif

struct ns_handle {
	struct file_handle fh;
	unsigned char bytes[MAX_HANDLE_SZ];
};

/* The handle of the caller's netns; 0, or the errno of name_to_handle_at. */
static int netns_handle(struct ns_handle *h)
{
	int fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	int mount_id, err = 0;

	if (fd < 0)
		return errno;
	h->fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", &h->fh, &mount_id, AT_EMPTY_PATH))
		err = errno;
	close(fd);
	return err;
}

/* Opens @h; returns the namespace's inode number, or -errno. */
static long open_netns_handle(struct ns_handle *h)
{
	struct stat st;
	int fd = open_by_handle_at(FD_NSFS_ROOT, &h->fh, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		st.st_ino = 0;
	close(fd);
	return st.st_ino;
}

#define REQUIRE_NS_HANDLES(err) \
	do { \
		if ((err) == EOPNOTSUPP) \
			SKIP(return, "nsfs has no file handles in this kernel"); \
	} while (0)

TEST(nosuid_netns_cannot_reopen_old_netns)
{
	const ino_t outer = netns_ino();
	struct ns_handle h;
	int err;

	REQUIRE_NOSUID();
	drop_to_user(_metadata, true);
	REQUIRE_NOSUID_NETNS();
	err = netns_handle(&h);
	REQUIRE_NS_HANDLES(err);
	ASSERT_EQ(0, err);
	/* Control: the handle opens while the caller is in that namespace. */
	EXPECT_EQ((long)outer, open_netns_handle(&h));

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ASSERT_NE(outer, netns_ino());
	/*
	 * nsfs says EPERM; exportfs turns every decoding error but ENOMEM
	 * into ESTALE.  The controls around this test tell the refusal from
	 * a stale handle: the same handle opens for root after its unshare.
	 */
	EXPECT_EQ(-ESTALE, open_netns_handle(&h));
}

/* The namespace made through the nosuid path opens by handle from inside. */
TEST(nosuid_netns_reopens_its_own)
{
	struct ns_handle h;
	int err;

	REQUIRE_NOSUID();
	drop_to_user(_metadata, true);
	REQUIRE_NOSUID_NETNS();
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	err = netns_handle(&h);
	REQUIRE_NS_HANDLES(err);
	ASSERT_EQ(0, err);
	EXPECT_EQ((long)netns_ino(), open_netns_handle(&h));
}

/* Control: root, who may see every namespace, reopens the old one. */
TEST(root_reopens_old_netns)
{
	const ino_t outer = netns_ino();
	struct ns_handle h;
	int err;

	err = netns_handle(&h);
	REQUIRE_NS_HANDLES(err);
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	EXPECT_EQ((long)outer, open_netns_handle(&h));
}

TEST_HARNESS_MAIN
