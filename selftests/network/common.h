/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the disablenetwork tests (prctl(PR_SET_NETWORK,
 * PR_NETWORK_OFF)): the option values, dropping to the unprivileged user,
 * closing the gate, and a set of loopback servers kept by an unrestricted
 * root process, so that a gated test process has something to reach.
 *
 * The usual shape of a test: the fixture setup starts the servers as root,
 * the test drops to uid 1000 and sets PR_SET_NOSUID (PR_SET_NETWORK needs
 * it), does the control (the operation must succeed now), closes the gate
 * and does the same operation again.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"

/* PR_SET_NOSUID and the others: the kernel's uapi headers (KHDR_INCLUDES). */

/*
 * The TSYNC flags come with their own series: on a kernel without them the
 * *_tsync variants of race_test.c skip, as the kernel answers EINVAL.
 */
#ifndef PR_NOSUID_TSYNC
#define PR_NOSUID_TSYNC 1UL
#endif
#ifndef PR_NETWORK_TSYNC
#define PR_NETWORK_TSYNC 1UL
#endif

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

#define USER_ID 1000
#define NO_NETWORK_PRCTL "kernel without PR_SET_NETWORK"

/* 0, or -errno when the call failed: one value to compare. */
#define RET(call) ((call) < 0 ? -errno : 0)

static inline bool have_network_prctl(void)
{
	/* PR_GET_NETWORK needs no privilege and no nosuid. */
	return prctl(PR_GET_NETWORK, 0, 0, 0, 0) >= 0;
}

/* For tests that close the gate in another process: skip up front. */
#define REQUIRE_NETWORK_PRCTL()                                    \
	do {                                                       \
		if (!have_network_prctl())                         \
			SKIP(return, NO_NETWORK_PRCTL);            \
	} while (0)

/*
 * Drop from root to the unprivileged user.  The uid change clears the
 * dumpable flag, which would make every same-uid ptrace control fail for
 * that reason alone: set it again.
 */
static inline void drop_to_user(struct __test_metadata *const _metadata)
{
	ASSERT_EQ(0, setgroups(0, NULL));
	ASSERT_EQ(0, setresgid(USER_ID, USER_ID, USER_ID));
	ASSERT_EQ(0, setresuid(USER_ID, USER_ID, USER_ID));
	ASSERT_EQ(0, prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
}

static inline void set_nosuid(struct __test_metadata *const _metadata)
{
	ASSERT_EQ(0, prctl(PR_SET_NOSUID, 1, 0, 0, 0))
	{
		TH_LOG("PR_SET_NOSUID: %s", strerror(errno));
	}
}

/* What every test needs before its control: uid 1000, nosuid. */
static inline void become_user(struct __test_metadata *const _metadata)
{
	drop_to_user(_metadata);
	set_nosuid(_metadata);
}

/*
 * Switch the network off for the calling process.  Usable where a bare
 * "return" leaves the test (a TEST body or the function a forked child
 * runs); on a kernel without the option, the test is skipped.
 */
#define CLOSE_GATE()                                                      \
	do {                                                              \
		int __gate = prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0); \
		if (__gate && errno == EINVAL)                            \
			SKIP(return, NO_NETWORK_PRCTL);                   \
		ASSERT_EQ(0, __gate)                                      \
		{                                                         \
			TH_LOG("PR_SET_NETWORK: %s", strerror(errno));    \
		}                                                         \
		ASSERT_EQ(PR_NETWORK_OFF, prctl(PR_GET_NETWORK, 0, 0, 0, 0)); \
	} while (0)

/* Make a blocked receive a failure, not a hang of the whole test. */
static inline void set_timeout(int fd)
{
	const struct timeval tv = { .tv_sec = 3 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

struct addr {
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
		struct sockaddr_un un;
		struct sockaddr_storage ss;
	};
	socklen_t len;
};

/* A loopback address with an ephemeral port, for bind(). */
static inline struct addr loopback(int family)
{
	struct addr a = {};

	if (family == AF_INET6) {
		a.in6.sin6_family = AF_INET6;
		a.in6.sin6_addr = in6addr_loopback;
		a.len = sizeof(a.in6);
	} else {
		a.in.sin_family = AF_INET;
		a.in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		a.len = sizeof(a.in);
	}
	return a;
}

/* A pathname (name[0] != '\0') or abstract (name[0] == '\0') address. */
static inline struct addr unix_addr(const char *name, size_t len)
{
	struct addr a = {};

	a.un.sun_family = AF_UNIX;
	memcpy(a.un.sun_path, name, len);
	a.len = offsetof(struct sockaddr_un, sun_path) + len;
	return a;
}

static inline struct addr local_addr(int fd)
{
	struct addr a = { .len = sizeof(a.ss) };

	if (getsockname(fd, &a.sa, &a.len))
		a.len = 0;
	return a;
}

static inline int connect_to(int fd, const struct addr *a)
{
	return RET(connect(fd, &a->sa, a->len));
}

static inline int bind_to(int fd, const struct addr *a)
{
	return RET(bind(fd, &a->sa, a->len));
}

/* sendto() of "ping"; the length or -errno. */
static inline int ping_to(int fd, int flags, const struct addr *a)
{
	ssize_t n = sendto(fd, "ping", 4, flags | MSG_NOSIGNAL,
			   a ? &a->sa : NULL, a ? a->len : 0);

	return n < 0 ? -errno : n;
}

/* The same through sendmsg() with msg_name. */
static inline int ping_msg_to(int fd, int flags, const struct addr *a)
{
	struct iovec iov = { .iov_base = "ping", .iov_len = 4 };
	struct msghdr msg = {
		.msg_name = (void *)&a->sa,
		.msg_namelen = a->len,
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	ssize_t n = sendmsg(fd, &msg, flags | MSG_NOSIGNAL);

	return n < 0 ? -errno : n;
}

/* Receive the echo of "ping": 0 if it came back. */
static inline int recv_ping(int fd)
{
	char buf[16] = {};
	ssize_t n;

	set_timeout(fd);
	/*
	 * With a receive timeout, a blocked recv() returns EINTR instead of
	 * restarting when task work interrupts it: io_uring's, after a
	 * request that io-wq completed.  That is not a result: wait again.
	 */
	do
		n = recv(fd, buf, sizeof(buf), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == 4 && !memcmp(buf, "ping", 4) ? 0 : -EBADMSG;
}

/* A round trip through an echo server on a connected socket. */
#define EXPECT_ECHO(fd)                                        \
	do {                                                   \
		EXPECT_EQ(4, write(fd, "ping", 4));            \
		EXPECT_EQ(0, recv_ping(fd));                   \
	} while (0)

/* Loopback servers, run by a root process that was never gated. */
enum {
	SRV_TCP4,
	SRV_TCP6,
	SRV_UDP4,
	SRV_UDP6,
	SRV_UNIX_STREAM,
	SRV_UNIX_DGRAM,
	SRV_ABSTRACT_STREAM,
	SRV_ABSTRACT_DGRAM,
	SRV_COUNT,
};

struct servers {
	pid_t pid;
	/* A 0777 directory for the pathname sockets of servers and tests. */
	char dir[64];
	struct addr addr[SRV_COUNT];
};

static const struct {
	int family, type;
	bool abstract;
} srv_kind[SRV_COUNT] = {
	[SRV_TCP4] = { AF_INET, SOCK_STREAM },
	[SRV_TCP6] = { AF_INET6, SOCK_STREAM },
	[SRV_UDP4] = { AF_INET, SOCK_DGRAM },
	[SRV_UDP6] = { AF_INET6, SOCK_DGRAM },
	[SRV_UNIX_STREAM] = { AF_UNIX, SOCK_STREAM },
	[SRV_UNIX_DGRAM] = { AF_UNIX, SOCK_DGRAM },
	[SRV_ABSTRACT_STREAM] = { AF_UNIX, SOCK_STREAM, true },
	[SRV_ABSTRACT_DGRAM] = { AF_UNIX, SOCK_DGRAM, true },
};

#define MAX_CONNS 32

/*
 * Echo everything: stream connections back on the connection, datagrams
 * back to their sender when it has an address.  Exit when the test process
 * goes away (the control pipe reaches end of file).
 */
static inline void serve(int ctl, const int *srv)
{
	struct pollfd pfd[1 + SRV_COUNT + MAX_CONNS];
	int nconn = 0, i;

	pfd[0] = (struct pollfd){ .fd = ctl, .events = POLLIN };
	for (i = 0; i < SRV_COUNT; i++)
		pfd[1 + i] = (struct pollfd){ .fd = srv[i], .events = POLLIN };
	for (;;) {
		if (poll(pfd, 1 + SRV_COUNT + nconn, -1) < 0)
			continue;
		if (pfd[0].revents)
			_exit(0);
		for (i = 0; i < SRV_COUNT; i++) {
			struct addr from = { .len = sizeof(from.ss) };
			char buf[256];
			ssize_t n;
			int c;

			if (!pfd[1 + i].revents)
				continue;
			if (srv_kind[i].type == SOCK_STREAM) {
				c = accept(srv[i], NULL, NULL);
				if (c >= 0 && nconn < MAX_CONNS)
					pfd[1 + SRV_COUNT + nconn++] =
						(struct pollfd){ .fd = c,
								 .events = POLLIN };
				else if (c >= 0)
					close(c);
				continue;
			}
			n = recvfrom(srv[i], buf, sizeof(buf), MSG_DONTWAIT,
				     &from.sa, &from.len);
			if (n >= 0 && from.len > sizeof(sa_family_t))
				sendto(srv[i], buf, n, MSG_DONTWAIT, &from.sa,
				       from.len);
		}
		for (i = 1 + SRV_COUNT; i < 1 + SRV_COUNT + nconn; i++) {
			char buf[256];
			ssize_t n;

			if (!pfd[i].revents)
				continue;
			n = read(pfd[i].fd, buf, sizeof(buf));
			if (n > 0 && write(pfd[i].fd, buf, n) == n)
				continue;
			close(pfd[i].fd);
			/* Move the last connection here and look at it next. */
			pfd[i] = pfd[SRV_COUNT + nconn];
			nconn--;
			i--;
		}
	}
}

/* As root: create the servers and hand them to a child process. */
static inline void servers_start(struct __test_metadata *const _metadata,
				 struct servers *s)
{
	int srv[SRV_COUNT], ctl[2], i;
	char name[108];

	snprintf(s->dir, sizeof(s->dir), "/tmp/disablenet.%d", getpid());
	ASSERT_EQ(0, mkdir(s->dir, 0777));
	ASSERT_EQ(0, chmod(s->dir, 0777));
	for (i = 0; i < SRV_COUNT; i++) {
		struct addr a;
		int len;

		srv[i] = socket(srv_kind[i].family,
				srv_kind[i].type | SOCK_CLOEXEC, 0);
		ASSERT_LE(0, srv[i]);
		if (srv_kind[i].family != AF_UNIX) {
			a = loopback(srv_kind[i].family);
		} else if (srv_kind[i].abstract) {
			len = snprintf(name, sizeof(name), "%cdisablenet.%d.%d",
				       0, getpid(), i);
			a = unix_addr(name, len);
		} else {
			len = snprintf(name, sizeof(name), "%s/srv%d", s->dir,
				       i);
			a = unix_addr(name, len + 1);
		}
		ASSERT_EQ(0, bind_to(srv[i], &a));
		if (srv_kind[i].type == SOCK_STREAM)
			ASSERT_EQ(0, listen(srv[i], 16));
		s->addr[i] = local_addr(srv[i]);
		ASSERT_LT(sizeof(sa_family_t), s->addr[i].len);
		/* Connecting to a pathname socket needs write access. */
		if (srv_kind[i].family == AF_UNIX && !srv_kind[i].abstract)
			ASSERT_EQ(0, chmod(name, 0777));
	}
	ASSERT_EQ(0, pipe2(ctl, O_CLOEXEC));
	s->pid = fork();
	ASSERT_LE(0, s->pid);
	if (s->pid == 0) {
		close(ctl[1]);
		serve(ctl[0], srv);
	}
	close(ctl[0]);
	for (i = 0; i < SRV_COUNT; i++)
		close(srv[i]);
	/*
	 * The write end stays open in the test process (not across exec)
	 * until it exits: then the server exits too.
	 */
}

/* From the parent of the test process (root): clean up. */
static inline void servers_stop(struct servers *s)
{
	struct dirent *d;
	DIR *dir;

	if (s->pid > 0)
		kill(s->pid, SIGKILL);
	dir = opendir(s->dir);
	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			unlinkat(dirfd(dir), d->d_name, 0);
	closedir(dir);
	rmdir(s->dir);
}

/* A pathname address in the servers' directory, for the test's own sockets. */
static inline struct addr test_path(const struct servers *s,
				    const char *name)
{
	char path[108];
	int len = snprintf(path, sizeof(path), "%s/%s", s->dir, name);

	return unix_addr(path, len + 1);
}

/* An abstract address unique to this test process. */
static inline struct addr test_abstract(const char *name)
{
	char path[108];
	int len = snprintf(path, sizeof(path), "%cdisablenet.%d.%s", 0,
			   getpid(), name);

	return unix_addr(path, len);
}

/* Wait for a child that reports through the shared _metadata. */
static inline int wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * A user and network namespace of our own, where we hold CAP_NET_RAW.
 * Skipped only where unprivileged user namespaces are not available: not
 * built (EINVAL) or switched off by Debian's sysctl.
 */
static inline bool
enter_own_netns(struct __test_metadata *const _metadata)
{
	char on = '1';
	int fd, err;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0)
		return true;
	err = errno;
	if (err == EINVAL)
		SKIP(return false, "no user namespaces in this kernel");
	fd = open("/proc/sys/kernel/unprivileged_userns_clone", O_RDONLY);
	if (fd >= 0 && read(fd, &on, 1) == 1 && on == '0')
		SKIP(return false, "unprivileged user namespaces switched off");
	ASSERT_EQ(0, err)
	{
		TH_LOG("unshare(CLONE_NEWUSER | CLONE_NEWNET): %s",
		       strerror(err));
	}
	return false;
}

/* Directory of the running test binary, where its helpers are. */
static inline void helper_path(char *buf, size_t size,
			       const char *name)
{
	char exe[PATH_MAX - 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	exe[n > 0 ? n : 0] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(buf, size, "%s/%s", slash ? exe : ".", name);
}
