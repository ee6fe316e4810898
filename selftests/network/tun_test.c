// SPDX-License-Identifier: GPL-2.0
/*
 * TUN/TAP behind the gate: a persistent device owned by the user is a
 * network interface its owner may attach to without CAP_NET_ADMIN, so a
 * gated task must not, nor create a new one (in a user namespace of its
 * own, where it would hold CAP_NET_ADMIN).  The vhost devices are the
 * same kind of thing: /dev/vhost-vsock makes its opener a vsock endpoint
 * (a guest with a CID of its choice) from rings in its own memory.
 */
#include "common.h"

#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#define TAP_NAME "dntap0"

static int tun_attach(const char *name)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
	int fd = open("/dev/net/tun", O_RDWR);
	int ret;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ret = RET(ioctl(fd, TUNSETIFF, &ifr));
	close(fd);
	return ret;
}

FIXTURE(tun) {};

/*
 * Root makes a persistent tap that belongs to the test user, and gives
 * /dev/net/tun the 0666 mode that udev gives it on distributions.
 */
FIXTURE_SETUP(tun)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
	int fd = open("/dev/net/tun", O_RDWR);

	if (fd < 0 && errno == ENOENT)
		SKIP(return, "kernel without TUN/TAP (no /dev/net/tun)");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, chmod("/dev/net/tun", 0666));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", TAP_NAME);
	ASSERT_EQ(0, ioctl(fd, TUNSETIFF, &ifr));
	ASSERT_EQ(0, ioctl(fd, TUNSETOWNER, USER_ID));
	ASSERT_EQ(0, ioctl(fd, TUNSETPERSIST, 1));
	close(fd);
}

FIXTURE_TEARDOWN(tun)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
	int fd = open("/dev/net/tun", O_RDWR);

	if (fd < 0)
		return;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", TAP_NAME);
	if (!ioctl(fd, TUNSETIFF, &ifr))
		ioctl(fd, TUNSETPERSIST, 0);
	close(fd);
}

TEST_F(tun, attach_persistent)
{
	pid_t child;

	REQUIRE_NETWORK_PRCTL();
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		become_user(_metadata);
		/* Control: its owner may attach, without any capability. */
		ASSERT_EQ(0, tun_attach(TAP_NAME));
		CLOSE_GATE();
		EXPECT_EQ(-EPERM, tun_attach(TAP_NAME));
		_exit(_metadata->exit_code);
	}
	ASSERT_EQ(0, wait_child(child));
}

TEST_F(tun, create_in_own_user_ns)
{
	pid_t child;
	int status;

	REQUIRE_NETWORK_PRCTL();
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		become_user(_metadata);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET))
			_exit(KSFT_SKIP);
		/* Control: CAP_NET_ADMIN in its own namespaces creates one. */
		ASSERT_EQ(0, tun_attach("dntap1"));
		CLOSE_GATE();
		EXPECT_EQ(-EPERM, tun_attach("dntap2"));
		_exit(_metadata->exit_code);
	}
	status = wait_child(child);
	if (status == KSFT_SKIP)
		SKIP(return, "no unprivileged user namespaces");
	ASSERT_EQ(0, status);
}

/*
 * /dev/vhost-vsock, with the 0666 mode systemd's udev rules give it on
 * some distributions: a task that was never gated opens it, a gated one
 * does not.  /dev/vhost-net follows the same hook and is not built here.
 */
#define VHOST_VSOCK "/dev/vhost-vsock"

static int open_vhost(void)
{
	int fd = open(VHOST_VSOCK, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

TEST(vhost_vsock_open)
{
	REQUIRE_NETWORK_PRCTL();
	if (access(VHOST_VSOCK, F_OK))
		SKIP(return, "kernel without CONFIG_VHOST_VSOCK (no " VHOST_VSOCK ")");
	ASSERT_EQ(0, chmod(VHOST_VSOCK, 0666));
	become_user(_metadata);

	ASSERT_EQ(0, open_vhost());
	CLOSE_GATE();
	EXPECT_EQ(-EPERM, open_vhost());
	/* Other character devices still open. */
	EXPECT_LE(0, open("/dev/null", O_RDWR | O_CLOEXEC));
}

TEST_HARNESS_MAIN
