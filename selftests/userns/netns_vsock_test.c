// SPDX-License-Identifier: GPL-2.0
/*
 * AF_VSOCK in the network namespace of a nosuid task.
 *
 * Since 7.x vsock is netns-aware: a namespace is "global" (it reaches
 * vsock sockets of every other global namespace, the initial one
 * included) or "local" (it reaches only its own), and a new namespace
 * takes its mode from net.vsock.child_ns_mode of its creator's, "global"
 * by default.  A namespace made through the unprivileged nosuid path
 * must be local, or a listener in the initial namespace stays one
 * connect() away over vsock loopback.
 *
 * Each test starts as root in the initial netns, with a vsock listener
 * there; the controls show that the listener is reachable from the
 * initial netns and from a global namespace made by root.
 */

#include <linux/vm_sockets.h>

#include "common.h"

#define NS_MODE "/proc/sys/net/vsock/ns_mode"
#define CHILD_NS_MODE "/proc/sys/net/vsock/child_ns_mode"

/* Before 7.x there are no vsock modes: nothing to test. */
#define REQUIRE_VSOCK_MODES() \
	do { \
		if (access(NS_MODE, F_OK)) \
			SKIP(return, "vsock is not netns-aware in this kernel (no %s)", \
			     NS_MODE); \
	} while (0)

/* "global", "local" or "" from a vsock mode sysctl of the caller's netns. */
static const char *vsock_mode(const char *path)
{
	static char buf[16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* A listening vsock stream socket on the local CID; its port in @port. */
static int vsock_listener(unsigned int *port)
{
	struct sockaddr_vm addr = {
		.svm_family = AF_VSOCK,
		.svm_cid = VMADDR_CID_ANY,
		.svm_port = VMADDR_PORT_ANY,
	};
	socklen_t len = sizeof(addr);
	int fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(fd, 8) ||
	    getsockname(fd, (struct sockaddr *)&addr, &len)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = addr.svm_port;
	return fd;
}

/* 0 if a vsock connect to @port on the local CID succeeds, else errno. */
static int try_vsock_connect(unsigned int port)
{
	struct sockaddr_vm addr = {
		.svm_family = AF_VSOCK,
		.svm_cid = VMADDR_CID_LOCAL,
		.svm_port = port,
	};
	int fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int err = 0;

	if (fd < 0)
		return errno;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
		err = errno;
	close(fd);
	return err;
}

FIXTURE(vsock)
{
	int listener;
	unsigned int port;
};

FIXTURE_SETUP(vsock)
{
	REQUIRE_NOSUID();
	REQUIRE_VSOCK_MODES();
	self->listener = vsock_listener(&self->port);
	ASSERT_LE(0, self->listener) TH_LOG("vsock listener: %s", strerror(errno));
	ASSERT_STREQ("global", vsock_mode(NS_MODE));
}

FIXTURE_TEARDOWN(vsock)
{
	if (self->listener >= 0)
		close(self->listener);
}

/* Control: the listener answers in its own namespace. */
TEST_F(vsock, reachable_from_initial_netns)
{
	drop_to_user(_metadata, true);
	EXPECT_EQ(0, try_vsock_connect(self->port));
}

/*
 * Control: a namespace root makes takes the default "global" mode and
 * reaches the listener in the initial one.  This is the door the next
 * test shows closed.
 */
TEST_F(vsock, reachable_from_global_netns_of_root)
{
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	EXPECT_STREQ("global", vsock_mode(NS_MODE));
	EXPECT_EQ(0, try_vsock_connect(self->port));
}

TEST_F(vsock, nosuid_netns_is_local)
{
	unsigned int inner_port;
	int inner;

	drop_to_user(_metadata, true);
	REQUIRE_NOSUID_NETNS();
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	EXPECT_STREQ("local", vsock_mode(NS_MODE));
	EXPECT_STREQ("local", vsock_mode(CHILD_NS_MODE));
	/* The listener of the initial namespace is out of reach ... */
	EXPECT_NE(0, try_vsock_connect(self->port));
	/* ... while vsock loopback inside the namespace works. */
	inner = vsock_listener(&inner_port);
	ASSERT_LE(0, inner) TH_LOG("inner listener: %s", strerror(errno));
	EXPECT_EQ(0, try_vsock_connect(inner_port));
	close(inner);
}

/* So are the namespaces made from inside it, whoever makes them. */
TEST_F(vsock, child_of_nosuid_netns_is_local)
{
	drop_to_user(_metadata, true);
	REQUIRE_NOSUID_NETNS();
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	EXPECT_STREQ("local", vsock_mode(NS_MODE));
	EXPECT_NE(0, try_vsock_connect(self->port));
	/* Root of a user namespace of its own cannot make it global. */
	ASSERT_EQ(0, unshare(CLONE_NEWUSER | CLONE_NEWNET));
	EXPECT_STREQ("local", vsock_mode(NS_MODE));
	EXPECT_NE(0, try_vsock_connect(self->port));
}

TEST_HARNESS_MAIN
