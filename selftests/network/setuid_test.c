// SPDX-License-Identifier: GPL-2.0
/*
 * The objection of 2009: a task that can switch its own network off can
 * confuse a setuid program it then runs (the sendmail capabilities bug).
 * The answer of this series is that only a nosuid task may switch it off,
 * and a nosuid task runs setuid programs with its own ids.  The helper is
 * a setuid-root program that, when it cannot reach a local service, falls
 * back on a privileged action: appending to a root-only file.
 */

#define _GNU_SOURCE
#include "common.h"

FIXTURE(setuid)
{
	struct servers srv;
	char dir[64], helper[96], file[96];
	/* A bound TCP port nobody listens on: connect() is refused. */
	int closed_fd, closed_port, open_port;
};

static void copy_file(struct __test_metadata *const _metadata,
		      const char *from, const char *to)
{
	int in = open(from, O_RDONLY), out;
	char buf[4096];
	ssize_t n;

	ASSERT_LE(0, in);
	out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0700);
	ASSERT_LE(0, out);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ASSERT_EQ(n, write(out, buf, n));
	ASSERT_EQ(0, n);
	close(in);
	/* chown() clears the setuid bit: chmod afterwards. */
	ASSERT_EQ(0, fchown(out, 0, 0));
	ASSERT_EQ(0, fchmod(out, 04755));
	close(out);
}

FIXTURE_SETUP(setuid)
{
	char path[PATH_MAX];
	struct addr a = loopback(AF_INET);
	int fd;

	servers_start(_metadata, &self->srv);
	self->open_port = ntohs(self->srv.addr[SRV_TCP4].in.sin_port);
	self->closed_fd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_EQ(0, bind_to(self->closed_fd, &a));
	self->closed_port = ntohs(local_addr(self->closed_fd).in.sin_port);

	/* On /tmp, which is not mounted nosuid; a directory only root writes. */
	snprintf(self->dir, sizeof(self->dir), "/tmp/disablenet-suid.%d",
		 getpid());
	ASSERT_EQ(0, mkdir(self->dir, 0755));
	snprintf(self->helper, sizeof(self->helper), "%s/setuid_helper",
		 self->dir);
	snprintf(self->file, sizeof(self->file), "%s/root-only", self->dir);
	helper_path(path, sizeof(path), "setuid_helper");
	copy_file(_metadata, path, self->helper);
	fd = open(self->file, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(5, write(fd, "root\n", 5));
	close(fd);
	drop_to_user(_metadata);
}

FIXTURE_TEARDOWN_PARENT(setuid)
{
	servers_stop(&self->srv);
	unlink(self->helper);
	unlink(self->file);
	rmdir(self->dir);
}

struct report {
	int euid, secure, net, fallback;
};

static struct report run_helper(struct __test_metadata *const _metadata,
				FIXTURE_DATA(setuid) *self, int port)
{
	struct report r = { -1, -1, -1, -1 };
	char out[128] = {}, arg[16];
	int pipefd[2], n;
	pid_t pid;

	snprintf(arg, sizeof(arg), "%d", port);
	if (pipe(pipefd))
		return r;
	pid = fork();
	if (pid == 0) {
		char *const argv[] = { self->helper, arg, self->file, NULL };

		dup2(pipefd[1], STDOUT_FILENO);
		execve(self->helper, argv, NULL);
		_exit(127);
	}
	close(pipefd[1]);
	read(pipefd[0], out, sizeof(out) - 1);
	close(pipefd[0]);
	EXPECT_EQ(0, wait_child(pid));
	n = sscanf(out, "euid=%d secure=%d net=%d fallback=%d", &r.euid,
		   &r.secure, &r.net, &r.fallback);
	EXPECT_EQ(4, n)
	{
		TH_LOG("helper said: %s", out);
	}
	return r;
}

/* The size of the root-only file (stat() needs no access to it). */
static off_t root_file_size(FIXTURE_DATA(setuid) *self)
{
	struct stat st;

	return stat(self->file, &st) ? -1 : st.st_size;
}

/*
 * Control, no flag at all: the helper runs as root, and when its service
 * is unreachable its fallback works.  This is what the tests below must
 * not let a gated caller provoke.
 */
TEST_F(setuid, fixture_works)
{
	struct report r = run_helper(_metadata, self, self->closed_port);

	EXPECT_EQ(0, r.euid);
	EXPECT_EQ(1, r.secure);
	EXPECT_EQ(ECONNREFUSED, r.net);
	EXPECT_EQ(0, r.fallback);
	EXPECT_EQ(5 + 9, root_file_size(self));
}

/*
 * Without nosuid, the network cannot be switched off, so the helper,
 * still setuid, keeps its network and never falls back.
 */
TEST_F(setuid, gate_needs_nosuid)
{
	struct report r;

	if (prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0) && errno == EINVAL)
		SKIP(return, NO_NETWORK_PRCTL);
	ASSERT_EQ(EPERM, errno);
	r = run_helper(_metadata, self, self->open_port);
	EXPECT_EQ(0, r.euid);
	EXPECT_EQ(1, r.secure);
	EXPECT_EQ(0, r.net);
	EXPECT_EQ(-1, r.fallback);
	EXPECT_EQ(5, root_file_size(self));
}

/*
 * Nosuid and gated: the helper runs with the caller's ids, its network is
 * refused, and so is its fallback: nothing was confused into acting as
 * root.  Before the gate, the same nosuid caller reaches the service.
 */
TEST_F(setuid, gated_helper_is_not_root)
{
	struct report r;

	set_nosuid(_metadata);
	r = run_helper(_metadata, self, self->open_port);
	EXPECT_EQ(USER_ID, r.euid);
	EXPECT_EQ(0, r.secure);
	EXPECT_EQ(0, r.net);

	CLOSE_GATE();
	r = run_helper(_metadata, self, self->open_port);
	EXPECT_EQ(USER_ID, r.euid);
	EXPECT_EQ(0, r.secure);
	EXPECT_EQ(EPERM, r.net);
	EXPECT_EQ(EACCES, r.fallback);
	EXPECT_EQ(5, root_file_size(self));
}

TEST_HARNESS_MAIN
