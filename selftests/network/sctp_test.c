// SPDX-License-Identifier: GPL-2.0
/*
 * SCTP one-to-many sockets behind prctl(PR_SET_NETWORK, PR_NETWORK_OFF).
 *
 * Peeling an association off (getsockopt SCTP_SOCKOPT_PEELOFF and
 * SCTP_SOCKOPT_PEELOFF_FLAGS) creates a new socket: a gated task gets
 * EPERM, as from socket().  Nothing is lost by that: the association keeps
 * working on the one-to-many socket, addressed by its id in an SCTP_SNDINFO
 * (or SCTP_SNDRCV) control message instead of by the peer's address, which
 * the gate refuses.  A socket peeled off before the gate is a connected
 * socket like any other and keeps working.
 *
 * The echo server is a root process that is never gated; only the client,
 * the test process, closes its gate.  The SCTP definitions come from the
 * kernel's <linux/sctp.h>: the guest has no libsctp.
 */

#define _GNU_SOURCE
#include "common.h"

/* After common.h: it needs the libc socket definitions first. */
#include <linux/sctp.h>

#ifndef IPPROTO_SCTP
#define IPPROTO_SCTP 132
#endif
#ifndef SOL_SCTP
#define SOL_SCTP 132
#endif

/* The errnos of socket() for something this kernel was built without. */
static bool not_built(int err)
{
	return err == EAFNOSUPPORT || err == EPROTONOSUPPORT ||
	       err == ESOCKTNOSUPPORT;
}

static int sctp_socket(void)
{
	return socket(AF_INET, SOCK_SEQPACKET | SOCK_CLOEXEC, IPPROTO_SCTP);
}

/*
 * The server: echo every user message back to the association it came
 * from, by the peer's address (the server is not gated).  Notifications
 * are not user messages.  Exit when the test process goes away.
 */
static void sctp_serve(int ctl, int srv)
{
	struct pollfd pfd[2] = {
		{ .fd = ctl, .events = POLLIN },
		{ .fd = srv, .events = POLLIN },
	};

	for (;;) {
		struct addr from = { .len = sizeof(from.ss) };
		char buf[256];
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr msg = {
			.msg_name = &from.ss,
			.msg_namelen = from.len,
			.msg_iov = &iov,
			.msg_iovlen = 1,
		};
		ssize_t n;

		if (poll(pfd, 2, -1) < 0)
			continue;
		if (pfd[0].revents)
			_exit(0);
		if (!pfd[1].revents)
			continue;
		n = recvmsg(srv, &msg, MSG_DONTWAIT);
		if (n <= 0 || (msg.msg_flags & MSG_NOTIFICATION))
			continue;
		sendto(srv, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL,
		       (struct sockaddr *)&from.ss, msg.msg_namelen);
	}
}

FIXTURE(sctp)
{
	pid_t server;
	/* The test process, and its write end of the server's control pipe. */
	pid_t test_pid;
	int ctl;
	struct addr srv;
};

FIXTURE_SETUP(sctp)
{
	struct addr any = loopback(AF_INET);
	int srv, ctl[2];

	self->server = -1;
	self->ctl = -1;
	srv = sctp_socket();
	if (srv < 0 && not_built(errno))
		SKIP(return, "SCTP not built into this kernel (CONFIG_IP_SCTP)");
	ASSERT_LE(0, srv);
	ASSERT_EQ(0, bind_to(srv, &any));
	/* A one-to-many socket accepts associations only when listening. */
	ASSERT_EQ(0, listen(srv, 8));
	self->srv = local_addr(srv);
	ASSERT_EQ(sizeof(struct sockaddr_in), self->srv.len);

	ASSERT_EQ(0, pipe2(ctl, O_CLOEXEC));
	self->server = fork();
	ASSERT_LE(0, self->server);
	if (self->server == 0) {
		close(ctl[1]);
		sctp_serve(ctl[0], srv);
	}
	close(ctl[0]);
	close(srv);
	/* The server lives as long as ctl[1], which the test process keeps. */
	self->ctl = ctl[1];
	self->test_pid = getpid();

	become_user(_metadata);
}

/*
 * Normally in the parent, where the kill does it; after an ASSERT the
 * harness may run it in the test process itself (uid 1000, which cannot
 * kill root's server): there closing the pipe ends the server.
 */
FIXTURE_TEARDOWN_PARENT(sctp)
{
	if (self->ctl >= 0 && getpid() == self->test_pid)
		close(self->ctl);
	if (self->server > 0) {
		kill(self->server, SIGKILL);
		waitpid(self->server, NULL, 0);
	}
}

/*
 * An SCTP handshake and echo take several seconds on a debug kernel under
 * TCG (KASAN): wait longer than common.h's 3 s before calling it lost.
 */
static void sctp_set_timeout(int fd)
{
	const struct timeval tv = { .tv_sec = 30 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* A client one-to-many socket that reports association ids on receipt. */
static int sctp_client(struct __test_metadata *const _metadata)
{
	const int on = 1;
	int fd = sctp_socket();

	ASSERT_LE(0, fd);
	sctp_set_timeout(fd);
	ASSERT_EQ(0, setsockopt(fd, SOL_SCTP, SCTP_RECVRCVINFO, &on,
				sizeof(on)));
	return fd;
}

/*
 * Receive the next user message into @buf (skipping notifications, should
 * any be subscribed); the association it came on goes to *@assoc when the
 * socket reports it.  Returns the length or -errno.
 */
static int sctp_recv(int fd, char *buf, size_t size, sctp_assoc_t *assoc)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct sctp_rcvinfo))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr msg;
	struct cmsghdr *cmsg;
	ssize_t n;

	for (;;) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		n = recvmsg(fd, &msg, 0);
		if (n < 0)
			return -errno;
		if (!(msg.msg_flags & MSG_NOTIFICATION))
			break;
	}
	for (cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
		struct sctp_rcvinfo info;

		if (cmsg->cmsg_level != SOL_SCTP ||
		    cmsg->cmsg_type != SCTP_RCVINFO || !assoc)
			continue;
		memcpy(&info, CMSG_DATA(cmsg), sizeof(info));
		*assoc = info.rcv_assoc_id;
	}
	return n;
}

/* The echo of "ping": 0 if it came back. */
static int sctp_recv_ping(int fd, sctp_assoc_t *assoc)
{
	char buf[16] = {};
	int n = sctp_recv(fd, buf, sizeof(buf), assoc);

	if (n < 0)
		return n;
	return n == 4 && !memcmp(buf, "ping", 4) ? 0 : -EBADMSG;
}

/*
 * Set up an association to the server the way an application does before
 * the gate: a first message sent to the server's address, which makes the
 * association implicitly.  The echo coming back means the handshake is
 * over: the association is ESTABLISHED (SCTP_STATUS says so too), so a
 * peel-off cannot fail for a reason of its own.  Returns its id.
 */
static sctp_assoc_t sctp_associate(struct __test_metadata *const _metadata,
				   int fd, const struct addr *srv)
{
	struct sctp_status status = {};
	socklen_t len = sizeof(status);
	sctp_assoc_t assoc = 0;

	ASSERT_EQ(4, ping_to(fd, 0, srv));
	ASSERT_EQ(0, sctp_recv_ping(fd, &assoc));
	ASSERT_NE(0, assoc);
	status.sstat_assoc_id = assoc;
	ASSERT_EQ(0, getsockopt(fd, SOL_SCTP, SCTP_STATUS, &status, &len));
	ASSERT_EQ(SCTP_ESTABLISHED, status.sstat_state);
	return assoc;
}

/* A send on association @assoc, named in a control message, no address. */
static int sctp_send_assoc(int fd, int type, sctp_assoc_t assoc)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct sctp_sndrcvinfo))];
		struct cmsghdr align;
	} u = {};
	struct iovec iov = { .iov_base = "ping", .iov_len = 4 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
	};
	struct cmsghdr *cmsg = (struct cmsghdr *)u.buf;
	ssize_t n;

	cmsg->cmsg_level = SOL_SCTP;
	cmsg->cmsg_type = type;
	if (type == SCTP_SNDINFO) {
		struct sctp_sndinfo info = { .snd_assoc_id = assoc };

		cmsg->cmsg_len = CMSG_LEN(sizeof(info));
		memcpy(CMSG_DATA(cmsg), &info, sizeof(info));
		msg.msg_controllen = CMSG_SPACE(sizeof(info));
	} else {
		struct sctp_sndrcvinfo info = { .sinfo_assoc_id = assoc };

		cmsg->cmsg_len = CMSG_LEN(sizeof(info));
		memcpy(CMSG_DATA(cmsg), &info, sizeof(info));
		msg.msg_controllen = CMSG_SPACE(sizeof(info));
	}
	n = sendmsg(fd, &msg, MSG_NOSIGNAL);
	return n < 0 ? -errno : n;
}

/* The association's own socket, or -errno. */
static int peeloff(int fd, sctp_assoc_t assoc)
{
	sctp_peeloff_arg_t arg = { .associd = assoc };
	socklen_t len = sizeof(arg);

	/* Success returns the new descriptor, not 0 (lksctp checks < 0). */
	if (getsockopt(fd, SOL_SCTP, SCTP_SOCKOPT_PEELOFF, &arg, &len) < 0)
		return -errno;
	return arg.sd;
}

static int peeloff_flags(int fd, sctp_assoc_t assoc, unsigned int flags)
{
	sctp_peeloff_flags_arg_t arg = {
		.p_arg.associd = assoc,
		.flags = flags,
	};
	socklen_t len = sizeof(arg);

	if (getsockopt(fd, SOL_SCTP, SCTP_SOCKOPT_PEELOFF_FLAGS, &arg, &len) < 0)
		return -errno;
	return arg.p_arg.sd;
}

/* A peeled-off socket is connected: plain write/recv of "ping". */
#define EXPECT_PEELED_ECHO(fd)                                   \
	do {                                                     \
		sctp_set_timeout(fd);                            \
		EXPECT_EQ(4, write(fd, "ping", 4));              \
		EXPECT_EQ(0, sctp_recv_ping(fd, NULL));          \
	} while (0)

/*
 * Both peel-off options: allowed without the gate, EPERM behind it, and
 * the association that could not be peeled off still carries messages on
 * the one-to-many socket.
 */
TEST_F(sctp, peeloff)
{
	sctp_assoc_t assoc[4], seen;
	int fd[4], p, i;

	for (i = 0; i < 4; i++) {
		fd[i] = sctp_client(_metadata);
		assoc[i] = sctp_associate(_metadata, fd[i], &self->srv);
	}

	/* Control: a new socket for the association, which talks. */
	p = peeloff(fd[0], assoc[0]);
	ASSERT_LE(0, p)
	{
		TH_LOG("SCTP_SOCKOPT_PEELOFF: %s", strerror(-p));
	}
	EXPECT_PEELED_ECHO(p);
	close(p);
	p = peeloff_flags(fd[1], assoc[1], SOCK_CLOEXEC);
	ASSERT_LE(0, p)
	{
		TH_LOG("SCTP_SOCKOPT_PEELOFF_FLAGS: %s", strerror(-p));
	}
	EXPECT_EQ(FD_CLOEXEC, fcntl(p, F_GETFD));
	EXPECT_PEELED_ECHO(p);
	close(p);

	CLOSE_GATE();
	EXPECT_EQ(-EPERM, peeloff(fd[2], assoc[2]));
	EXPECT_EQ(-EPERM, peeloff_flags(fd[3], assoc[3], SOCK_CLOEXEC));
	EXPECT_EQ(-EPERM, peeloff_flags(fd[3], assoc[3], 0));

	/* Still on the one-to-many sockets, and still working. */
	for (i = 2; i < 4; i++) {
		seen = 0;
		EXPECT_EQ(4, sctp_send_assoc(fd[i], SCTP_SNDINFO, assoc[i]));
		EXPECT_EQ(0, sctp_recv_ping(fd[i], &seen));
		EXPECT_EQ(assoc[i], seen);
	}
}

/*
 * Behind the gate a one-to-many socket reaches its associations by id:
 * SCTP_SNDINFO and the older SCTP_SNDRCV, no address.  The address, which
 * could start a new association, is refused (DESIGN.md, sendmsg rule).
 */
TEST_F(sctp, send_by_assoc_id)
{
	sctp_assoc_t assoc, seen = 0;
	int fd;

	fd = sctp_client(_metadata);
	assoc = sctp_associate(_metadata, fd, &self->srv);
	/* Control: the same sends before the gate. */
	EXPECT_EQ(4, sctp_send_assoc(fd, SCTP_SNDINFO, assoc));
	EXPECT_EQ(0, sctp_recv_ping(fd, &seen));
	EXPECT_EQ(assoc, seen);
	EXPECT_EQ(4, sctp_send_assoc(fd, SCTP_SNDRCV, assoc));
	EXPECT_EQ(0, sctp_recv_ping(fd, NULL));

	CLOSE_GATE();
	seen = 0;
	EXPECT_EQ(4, sctp_send_assoc(fd, SCTP_SNDINFO, assoc));
	EXPECT_EQ(0, sctp_recv_ping(fd, &seen));
	EXPECT_EQ(assoc, seen);
	EXPECT_EQ(4, sctp_send_assoc(fd, SCTP_SNDRCV, assoc));
	EXPECT_EQ(0, sctp_recv_ping(fd, NULL));
	/* The same association, named by the peer's address: refused. */
	EXPECT_EQ(-EPERM, ping_to(fd, 0, &self->srv));
	/* The refusal did not break it. */
	EXPECT_EQ(4, sctp_send_assoc(fd, SCTP_SNDINFO, assoc));
	EXPECT_EQ(0, sctp_recv_ping(fd, NULL));
}

/* A socket peeled off before the gate is a connected socket: it talks. */
TEST_F(sctp, peeled_before_gate)
{
	sctp_assoc_t assoc;
	int fd, p;

	fd = sctp_client(_metadata);
	assoc = sctp_associate(_metadata, fd, &self->srv);
	p = peeloff(fd, assoc);
	ASSERT_LE(0, p)
	{
		TH_LOG("SCTP_SOCKOPT_PEELOFF: %s", strerror(-p));
	}
	EXPECT_PEELED_ECHO(p);

	CLOSE_GATE();
	EXPECT_PEELED_ECHO(p);
	EXPECT_EQ(4, ping_to(p, 0, NULL));
	EXPECT_EQ(0, sctp_recv_ping(p, NULL));
	/* Its peer given as an address: refused like any addressed send. */
	EXPECT_EQ(-EPERM, ping_to(p, 0, &self->srv));
	EXPECT_PEELED_ECHO(p);
}

TEST_HARNESS_MAIN
