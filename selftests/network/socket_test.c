// SPDX-License-Identifier: GPL-2.0
/*
 * What a task can still do with sockets once prctl(PR_SET_NETWORK,
 * PR_NETWORK_OFF) is in force: no new sockets but AF_UNIX, no bind,
 * connect, listen or addressed send on the sockets it kept, while the
 * connections it already has keep working.  AF_UNIX keeps its pathname
 * sockets (the filesystem decides who reaches them) and loses the abstract
 * namespace.
 *
 * Every refusal is checked against the same call made by the same task
 * just before the gate closed.
 */

#define _GNU_SOURCE
#include <linux/if_alg.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <linux/vm_sockets.h>

#include "common.h"

#ifndef IPPROTO_SCTP
#define IPPROTO_SCTP 132
#endif
#ifndef SOL_SCTP
#define SOL_SCTP 132
#endif
#ifndef SCTP_SOCKOPT_BINDX_ADD
#define SCTP_SOCKOPT_BINDX_ADD 100
#endif
#ifndef SCTP_SOCKOPT_CONNECTX
#define SCTP_SOCKOPT_CONNECTX 110
#endif

/* The errnos of socket() for something this kernel was built without. */
static bool not_built(int err)
{
	return err == EAFNOSUPPORT || err == EPROTONOSUPPORT ||
	       err == ESOCKTNOSUPPORT;
}

FIXTURE(socket_create) {};

FIXTURE_VARIANT(socket_create)
{
	int family, type, protocol;
	/* Needs CAP_NET_RAW, which uid 1000 only has in a netns of its own. */
	bool own_netns;
	/* AF_UNIX stays available. */
	bool allowed;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(socket_create, unix_stream) {
	.family = AF_UNIX, .type = SOCK_STREAM, .allowed = true,
};

FIXTURE_VARIANT_ADD(socket_create, unix_dgram) {
	.family = AF_UNIX, .type = SOCK_DGRAM, .allowed = true,
};

FIXTURE_VARIANT_ADD(socket_create, unix_seqpacket) {
	.family = AF_UNIX, .type = SOCK_SEQPACKET, .allowed = true,
};

FIXTURE_VARIANT_ADD(socket_create, inet_tcp) {
	.family = AF_INET, .type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(socket_create, inet_udp) {
	.family = AF_INET, .type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(socket_create, inet6_tcp) {
	.family = AF_INET6, .type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(socket_create, inet6_udp) {
	.family = AF_INET6, .type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(socket_create, inet_mptcp) {
	.family = AF_INET, .type = SOCK_STREAM, .protocol = IPPROTO_MPTCP,
};

FIXTURE_VARIANT_ADD(socket_create, inet6_mptcp) {
	.family = AF_INET6, .type = SOCK_STREAM, .protocol = IPPROTO_MPTCP,
};

FIXTURE_VARIANT_ADD(socket_create, inet_sctp) {
	.family = AF_INET, .type = SOCK_STREAM, .protocol = IPPROTO_SCTP,
};

FIXTURE_VARIANT_ADD(socket_create, inet_raw) {
	.family = AF_INET, .type = SOCK_RAW, .protocol = IPPROTO_ICMP,
	.own_netns = true,
};

FIXTURE_VARIANT_ADD(socket_create, inet6_raw) {
	.family = AF_INET6, .type = SOCK_RAW, .protocol = IPPROTO_ICMPV6,
	.own_netns = true,
};

FIXTURE_VARIANT_ADD(socket_create, packet_raw) {
	.family = AF_PACKET, .type = SOCK_RAW, .protocol = 0x0300 /* ETH_P_ALL */,
	.own_netns = true,
};

FIXTURE_VARIANT_ADD(socket_create, packet_dgram) {
	.family = AF_PACKET, .type = SOCK_DGRAM, .protocol = 0x0300,
	.own_netns = true,
};

FIXTURE_VARIANT_ADD(socket_create, netlink_route) {
	.family = AF_NETLINK, .type = SOCK_RAW, .protocol = 0 /* NETLINK_ROUTE */,
};

FIXTURE_VARIANT_ADD(socket_create, vsock_stream) {
	.family = AF_VSOCK, .type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(socket_create, alg) {
	.family = AF_ALG, .type = SOCK_SEQPACKET,
};

/* clang-format on */

FIXTURE_SETUP(socket_create)
{
	become_user(_metadata);
	if (variant->own_netns)
		enter_own_netns(_metadata);
}

FIXTURE_TEARDOWN(socket_create)
{
}

TEST_F(socket_create, socket)
{
	int fd;

	fd = socket(variant->family, variant->type, variant->protocol);
	if (fd < 0 && not_built(errno))
		SKIP(return, "socket(%d, %d, %d) not built into this kernel",
		     variant->family, variant->type, variant->protocol);
	ASSERT_LE(0, fd)
	{
		TH_LOG("control: %s", strerror(errno));
	}
	close(fd);

	CLOSE_GATE();
	fd = socket(variant->family, variant->type, variant->protocol);
	if (variant->allowed) {
		ASSERT_LE(0, fd);
		close(fd);
	} else {
		ASSERT_EQ(-1, fd);
		ASSERT_EQ(EPERM, errno);
	}
}

/*
 * socketpair() creates sockets too.  Most families then refuse to pair
 * them (EOPNOTSUPP): the gate must answer first, with EPERM.
 */
TEST_F(socket_create, socketpair)
{
	int sv[2], control;

	control = RET(socketpair(variant->family, variant->type,
				 variant->protocol, sv));
	if (not_built(-control))
		SKIP(return, "socketpair(%d, %d, %d) not built into this kernel",
		     variant->family, variant->type, variant->protocol);
	TH_LOG("control: %s", strerror(-control));
	/* Two ifs: an ASSERT_*() cannot be followed by an else. */
	if (variant->allowed)
		ASSERT_EQ(0, control);
	if (!variant->allowed)
		ASSERT_NE(-EPERM, control);

	CLOSE_GATE();
	if (variant->allowed) {
		ASSERT_EQ(0, socketpair(variant->family, variant->type,
					variant->protocol, sv));
	} else {
		ASSERT_EQ(-EPERM, RET(socketpair(variant->family, variant->type,
						 variant->protocol, sv)));
	}
}

/* Inet sockets that were created before the gate closed. */
FIXTURE(inet)
{
	struct servers srv;
	struct addr server;
};

FIXTURE_VARIANT(inet)
{
	int family, type, protocol;
	int server;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(inet, tcp4) {
	.family = AF_INET, .type = SOCK_STREAM, .server = SRV_TCP4,
};

FIXTURE_VARIANT_ADD(inet, tcp6) {
	.family = AF_INET6, .type = SOCK_STREAM, .server = SRV_TCP6,
};

FIXTURE_VARIANT_ADD(inet, udp4) {
	.family = AF_INET, .type = SOCK_DGRAM, .server = SRV_UDP4,
};

FIXTURE_VARIANT_ADD(inet, udp6) {
	.family = AF_INET6, .type = SOCK_DGRAM, .server = SRV_UDP6,
};

/* An MPTCP client falls back to plain TCP with a TCP server. */
FIXTURE_VARIANT_ADD(inet, mptcp4) {
	.family = AF_INET, .type = SOCK_STREAM, .protocol = IPPROTO_MPTCP,
	.server = SRV_TCP4,
};

FIXTURE_VARIANT_ADD(inet, mptcp6) {
	.family = AF_INET6, .type = SOCK_STREAM, .protocol = IPPROTO_MPTCP,
	.server = SRV_TCP6,
};

/* clang-format on */

FIXTURE_SETUP(inet)
{
	servers_start(_metadata, &self->srv);
	self->server = self->srv.addr[variant->server];
	become_user(_metadata);
}

FIXTURE_TEARDOWN_PARENT(inet)
{
	servers_stop(&self->srv);
}

/* Sockets of the variant's kind, made now; false if it is not built. */
static bool inet_sockets(struct __test_metadata *const _metadata,
			 const FIXTURE_VARIANT(inet) *const variant, int *fd,
			 int n)
{
	int i;

	for (i = 0; i < n; i++) {
		fd[i] = socket(variant->family, variant->type,
			       variant->protocol);
		if (fd[i] < 0 && not_built(errno))
			SKIP(return false,
			     "protocol %d not built into this kernel",
			     variant->protocol);
		ASSERT_LE(0, fd[i]);
		set_timeout(fd[i]);
	}
	return true;
}

#define INET_SOCKETS(fd)                                                \
	do {                                                            \
		if (!inet_sockets(_metadata, variant, fd, ARRAY_SIZE(fd))) \
			return;                                         \
	} while (0)

/* Where MSG_FASTOPEN lets a stream socket connect with its first send. */
static int send_flags(const FIXTURE_VARIANT(inet) *const variant)
{
	return variant->type == SOCK_STREAM ? MSG_FASTOPEN : 0;
}

TEST_F(inet, bind)
{
	struct addr any = loopback(variant->family);
	int fd[2];

	INET_SOCKETS(fd);
	ASSERT_EQ(0, bind_to(fd[0], &any));

	CLOSE_GATE();
	ASSERT_EQ(-EPERM, bind_to(fd[1], &any));
}

TEST_F(inet, connect)
{
	int fd[2];

	INET_SOCKETS(fd);
	ASSERT_EQ(0, connect_to(fd[0], &self->server));
	EXPECT_ECHO(fd[0]);

	CLOSE_GATE();
	ASSERT_EQ(-EPERM, connect_to(fd[1], &self->server));
	/* The one connected before still works. */
	EXPECT_ECHO(fd[0]);
}

/* Connections made before the gate: write/read, send/recv, sendto(NULL). */
TEST_F(inet, connected_io)
{
	char buf[8] = {};
	int fd[1];

	INET_SOCKETS(fd);
	ASSERT_EQ(0, connect_to(fd[0], &self->server));

	CLOSE_GATE();
	EXPECT_ECHO(fd[0]);
	ASSERT_EQ(4, send(fd[0], "ping", 4, 0));
	ASSERT_EQ(4, recv(fd[0], buf, sizeof(buf), 0));
	ASSERT_EQ(4, ping_to(fd[0], 0, NULL));
	ASSERT_EQ(0, recv_ping(fd[0]));
}

/*
 * connect(AF_UNSPEC) on a stream socket only ends its connection: allowed.
 * On a datagram socket it would drop the peer and keep the port: refused.
 * Neither opens a way back: a new connect() is still refused.
 */
TEST_F(inet, disconnect)
{
	const struct addr unspec = { .sa.sa_family = AF_UNSPEC,
				     .len = sizeof(struct sockaddr) };
	int fd[2];

	INET_SOCKETS(fd);
	ASSERT_EQ(0, connect_to(fd[0], &self->server));
	ASSERT_EQ(0, connect_to(fd[0], &unspec));
	ASSERT_EQ(0, connect_to(fd[1], &self->server));

	CLOSE_GATE();
	if (variant->type == SOCK_DGRAM) {
		/*
		 * A datagram socket would keep its port and receive from
		 * anyone: refused, and it stays connected to its peer.
		 */
		ASSERT_EQ(-EPERM, connect_to(fd[1], &unspec));
		ASSERT_EQ(4, ping_to(fd[1], 0, NULL));
		ASSERT_EQ(0, recv_ping(fd[1]));
	} else {
		ASSERT_EQ(0, connect_to(fd[1], &unspec));
	}
	ASSERT_EQ(-EPERM, connect_to(fd[1], &self->server));
}

/*
 * On a connected datagram socket, an address given to sendto() overrides
 * the peer: refused.  The control shows the override: the datagram goes
 * to a second receiver.  Stream sockets ignore the address, but the rule
 * is the same for them.
 */
TEST_F(inet, sendto_connected)
{
	struct addr other = self->server, any = loopback(variant->family);
	int fd[2], rcv = -1;
	char buf[8];

	INET_SOCKETS(fd);
	if (variant->type == SOCK_DGRAM) {
		rcv = socket(variant->family, SOCK_DGRAM, 0);
		ASSERT_EQ(0, bind_to(rcv, &any));
		other = local_addr(rcv);
	}
	ASSERT_EQ(0, connect_to(fd[0], &self->server));
	ASSERT_EQ(0, connect_to(fd[1], &self->server));
	ASSERT_EQ(4, ping_to(fd[0], 0, &other));
	ASSERT_EQ(0, recv_ping(rcv >= 0 ? rcv : fd[0]));

	CLOSE_GATE();
	ASSERT_EQ(-EPERM, ping_to(fd[1], 0, &other));
	ASSERT_EQ(-EPERM, ping_msg_to(fd[1], 0, &other));
	if (rcv >= 0)
		ASSERT_EQ(-1, recv(rcv, buf, sizeof(buf), MSG_DONTWAIT));
	/* Without an address, the same socket still sends to its peer. */
	ASSERT_EQ(4, ping_to(fd[1], 0, NULL));
	ASSERT_EQ(0, recv_ping(fd[1]));
}

/*
 * An unconnected socket sends with an address: a datagram, or for TCP and
 * MPTCP a connection made by the first send (TCP Fast Open).
 */
TEST_F(inet, sendto_unconnected)
{
	int fd[2];

	INET_SOCKETS(fd);
	ASSERT_EQ(4, ping_to(fd[0], send_flags(variant), &self->server));
	ASSERT_EQ(0, recv_ping(fd[0]));

	CLOSE_GATE();
	ASSERT_EQ(-EPERM, ping_to(fd[1], send_flags(variant), &self->server));
}

TEST_F(inet, sendmsg_unconnected)
{
	struct iovec iov = { .iov_base = "ping", .iov_len = 4 };
	struct mmsghdr mmsg = {
		.msg_hdr = {
			.msg_name = &self->server.sa,
			.msg_namelen = self->server.len,
			.msg_iov = &iov,
			.msg_iovlen = 1,
		},
	};
	int fd[3];

	INET_SOCKETS(fd);
	ASSERT_EQ(4, ping_msg_to(fd[0], send_flags(variant), &self->server));
	ASSERT_EQ(0, recv_ping(fd[0]));

	CLOSE_GATE();
	ASSERT_EQ(-EPERM, ping_msg_to(fd[1], send_flags(variant),
				      &self->server));
	ASSERT_EQ(-1, sendmmsg(fd[2], &mmsg, 1,
			       send_flags(variant) | MSG_NOSIGNAL));
	ASSERT_EQ(EPERM, errno);
}

/*
 * listen() on a socket kept from before; also on one that was never bound,
 * which listen() would otherwise bind to an ephemeral port.
 */
TEST_F(inet, listen)
{
	const int control = variant->type == SOCK_STREAM ? 0 : -EOPNOTSUPP;
	struct addr any = loopback(variant->family);
	int fd[4];

	INET_SOCKETS(fd);
	ASSERT_EQ(0, bind_to(fd[0], &any));
	ASSERT_EQ(0, bind_to(fd[1], &any));
	ASSERT_EQ(control, RET(listen(fd[0], 1)));
	ASSERT_EQ(control, RET(listen(fd[2], 1)));

	CLOSE_GATE();
	ASSERT_EQ(-EPERM, RET(listen(fd[1], 1)));
	ASSERT_EQ(-EPERM, RET(listen(fd[3], 1)));
}

/*
 * The privilege-separated server: bind and listen, close the gate, then
 * serve the clients that come.  A stream server accepts and talks; a
 * datagram server receives, but cannot answer: its reply needs an address.
 */
TEST_F(inet, serve)
{
	struct addr any = loopback(variant->family), me, peer;
	int fd[1], go[2], c;
	pid_t client;
	char buf[8] = {};

	INET_SOCKETS(fd);
	ASSERT_EQ(0, bind_to(fd[0], &any));
	if (variant->type == SOCK_STREAM)
		ASSERT_EQ(0, listen(fd[0], 1));
	me = local_addr(fd[0]);
	ASSERT_EQ(0, pipe(go));

	/* A client that is not gated, started before the gate closes. */
	client = fork();
	ASSERT_LE(0, client);
	if (client == 0) {
		int s = socket(variant->family, variant->type,
			       variant->protocol);

		set_timeout(s);
		close(go[1]);
		if (read(go[0], buf, 1) != 0 || connect_to(s, &me) ||
		    write(s, "ping", 4) != 4)
			_exit(1);
		/* A stream server answers. */
		_exit(variant->type == SOCK_STREAM && recv_ping(s) ? 2 : 0);
	}
	close(go[0]);

	CLOSE_GATE();
	close(go[1]);
	if (variant->type == SOCK_STREAM) {
		c = accept(fd[0], NULL, NULL);
		ASSERT_LE(0, c);
		set_timeout(c);
		ASSERT_EQ(0, recv_ping(c));
		ASSERT_EQ(4, write(c, "ping", 4));
	} else {
		peer.len = sizeof(peer.ss);
		ASSERT_EQ(4, recvfrom(fd[0], buf, sizeof(buf), 0, &peer.sa,
				      &peer.len));
		ASSERT_EQ(-EPERM, ping_to(fd[0], 0, &peer));
	}
	ASSERT_EQ(0, wait_child(client));
}

/*
 * Sockets made by a process that is not gated and passed over AF_UNIX
 * (SCM_RIGHTS) after the gate closed: what was connected keeps working,
 * nothing new can be addressed through them.
 */
TEST_F(inet, received_socket)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))] = {}, c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;
	int sp[2], fd[2], probe[1];
	pid_t giver;

	/* Is the protocol there at all? */
	INET_SOCKETS(probe);
	close(probe[0]);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sp));
	giver = fork();
	ASSERT_LE(0, giver);
	if (giver == 0) {
		int s[3];

		close(sp[0]);
		/* Wait until the receiver is gated. */
		if (read(sp[1], &c, 1) != 1)
			_exit(1);
		if (!inet_sockets(_metadata, variant, s, 3))
			_exit(1);
		/* Control: the giver itself may connect and send anywhere. */
		if (connect_to(s[0], &self->server) ||
		    ping_to(s[2], send_flags(variant), &self->server) != 4 ||
		    recv_ping(s[2]))
			_exit(2);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(2 * sizeof(int));
		memcpy(CMSG_DATA(cmsg), s, 2 * sizeof(int));
		_exit(sendmsg(sp[1], &msg, 0) == 1 ? 0 : 3);
	}
	close(sp[1]);

	CLOSE_GATE();
	ASSERT_EQ(1, write(sp[0], "g", 1));
	ASSERT_EQ(1, recvmsg(sp[0], &msg, 0));
	ASSERT_EQ(0, wait_child(giver));
	cmsg = CMSG_FIRSTHDR(&msg);
	ASSERT_NE(NULL, cmsg);
	ASSERT_EQ(SCM_RIGHTS, cmsg->cmsg_type);
	memcpy(fd, CMSG_DATA(cmsg), sizeof(fd));

	/* fd[0] is connected to the server, fd[1] is not. */
	EXPECT_ECHO(fd[0]);
	ASSERT_EQ(-EPERM, ping_to(fd[0], 0, &self->server));
	ASSERT_EQ(-EPERM, ping_to(fd[1], send_flags(variant), &self->server));
	ASSERT_EQ(-EPERM, connect_to(fd[1], &self->server));
}

/*
 * Sockets of the other families, kept from before the gate: bind(),
 * connect() and addressed sends are refused whatever the family.  The
 * control is the same call on a twin socket before the gate; where it
 * cannot succeed (no peer, no such operation), it fails with another
 * errno, which shows that the EPERM comes from the gate.
 */
FIXTURE(kept) {};

#define NOT_EPERM INT_MIN

FIXTURE_VARIANT(kept)
{
	int family, type, protocol;
	bool own_netns;
	/* Control results: 0 or a length, -errno, or NOT_EPERM. */
	int bind_ret, connect_ret, sendto_ret;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(kept, netlink) {
	.family = AF_NETLINK, .type = SOCK_RAW, .protocol = NETLINK_ROUTE,
	/* To the kernel (port 0): a message too short to be parsed. */
	.bind_ret = 0, .connect_ret = 0, .sendto_ret = 4,
};

FIXTURE_VARIANT_ADD(kept, vsock) {
	.family = AF_VSOCK, .type = SOCK_STREAM,
	/* Non-blocking connect to a local port nobody listens on. */
	.bind_ret = 0, .connect_ret = NOT_EPERM, .sendto_ret = NOT_EPERM,
};

FIXTURE_VARIANT_ADD(kept, packet) {
	.family = AF_PACKET, .type = SOCK_DGRAM, .protocol = 0x0300,
	.own_netns = true,
	.bind_ret = 0, .connect_ret = -EOPNOTSUPP, .sendto_ret = NOT_EPERM,
};

/* bind() selects an algorithm: ENOENT if sha256 is not built. */
FIXTURE_VARIANT_ADD(kept, alg) {
	.family = AF_ALG, .type = SOCK_SEQPACKET,
	.bind_ret = NOT_EPERM, .connect_ret = -EOPNOTSUPP,
	.sendto_ret = NOT_EPERM,
};

FIXTURE_VARIANT_ADD(kept, sctp_stream) {
	.family = AF_INET, .type = SOCK_STREAM, .protocol = IPPROTO_SCTP,
	.bind_ret = 0, .connect_ret = NOT_EPERM, .sendto_ret = NOT_EPERM,
};

FIXTURE_VARIANT_ADD(kept, sctp_seqpacket) {
	.family = AF_INET, .type = SOCK_SEQPACKET, .protocol = IPPROTO_SCTP,
	.bind_ret = 0, .connect_ret = NOT_EPERM, .sendto_ret = NOT_EPERM,
};

/* clang-format on */

FIXTURE_SETUP(kept)
{
	become_user(_metadata);
	if (variant->own_netns)
		enter_own_netns(_metadata);
}

FIXTURE_TEARDOWN(kept)
{
}

/* A plausible address of the family, to bind to or to reach. */
static struct addr kept_addr(const FIXTURE_VARIANT(kept) *const variant,
			     bool local)
{
	struct addr a = {};

	switch (variant->family) {
	case AF_NETLINK:
		a.len = sizeof(struct sockaddr_nl);
		break;
	case AF_VSOCK: {
		struct sockaddr_vm *vm = (void *)&a.ss;

		vm->svm_cid = local ? VMADDR_CID_ANY : VMADDR_CID_LOCAL;
		vm->svm_port = local ? VMADDR_PORT_ANY : 4242;
		a.len = sizeof(*vm);
		break;
	}
	case AF_PACKET: {
		struct sockaddr_ll *ll = (void *)&a.ss;

		ll->sll_protocol = htons(ETH_P_ALL);
		ll->sll_ifindex = 1; /* lo */
		a.len = sizeof(*ll);
		break;
	}
	case AF_ALG: {
		struct sockaddr_alg *alg = (void *)&a.ss;

		snprintf((char *)alg->salg_type, sizeof(alg->salg_type), "hash");
		snprintf((char *)alg->salg_name, sizeof(alg->salg_name), "sha256");
		a.len = sizeof(*alg);
		break;
	}
	default:
		a = loopback(variant->family);
		/* No SCTP listener on the discard port. */
		if (!local)
			a.in.sin_port = htons(9);
		break;
	}
	a.sa.sa_family = variant->family;
	return a;
}

static bool kept_sockets(struct __test_metadata *const _metadata,
			 const FIXTURE_VARIANT(kept) *const variant, int *fd)
{
	int i;

	for (i = 0; i < 2; i++) {
		fd[i] = socket(variant->family, variant->type | SOCK_NONBLOCK,
			       variant->protocol);
		if (fd[i] < 0 && not_built(errno))
			SKIP(return false,
			     "socket(%d, %d, %d) not built into this kernel",
			     variant->family, variant->type, variant->protocol);
		ASSERT_LE(0, fd[i]);
	}
	return true;
}

#define EXPECT_CONTROL(expected, seen)                                 \
	do {                                                           \
		int __ctl = (seen);                                    \
		TH_LOG("control: %d", __ctl);                          \
		if ((expected) == NOT_EPERM) {                         \
			ASSERT_NE(-EPERM, __ctl);                      \
		} else {                                               \
			ASSERT_EQ((expected), __ctl);                  \
		}                                                      \
	} while (0)

TEST_F(kept, bind)
{
	struct addr a = kept_addr(variant, true);
	int fd[2];

	if (!kept_sockets(_metadata, variant, fd))
		return;
	EXPECT_CONTROL(variant->bind_ret, bind_to(fd[0], &a));
	CLOSE_GATE();
	ASSERT_EQ(-EPERM, bind_to(fd[1], &a));
}

TEST_F(kept, connect)
{
	struct addr a = kept_addr(variant, false);
	int fd[2];

	if (!kept_sockets(_metadata, variant, fd))
		return;
	EXPECT_CONTROL(variant->connect_ret, connect_to(fd[0], &a));
	CLOSE_GATE();
	ASSERT_EQ(-EPERM, connect_to(fd[1], &a));
}

TEST_F(kept, sendto)
{
	struct addr a = kept_addr(variant, false);
	int fd[2];

	if (!kept_sockets(_metadata, variant, fd))
		return;
	EXPECT_CONTROL(variant->sendto_ret, ping_to(fd[0], 0, &a));
	CLOSE_GATE();
	ASSERT_EQ(-EPERM, ping_to(fd[1], 0, &a));
}

/* SCTP also binds and connects through socket options (sctp_bindx(3)). */
TEST(sctp_sockopt)
{
	struct addr any = loopback(AF_INET), peer = loopback(AF_INET);
	int fd[4], i;

	peer.in.sin_port = htons(9);
	become_user(_metadata);
	for (i = 0; i < 4; i++) {
		fd[i] = socket(AF_INET, SOCK_SEQPACKET | SOCK_NONBLOCK,
			       IPPROTO_SCTP);
		if (fd[i] < 0 && not_built(errno))
			SKIP(return, "SCTP not built into this kernel");
		ASSERT_LE(0, fd[i]);
	}
	ASSERT_EQ(0, RET(setsockopt(fd[0], SOL_SCTP, SCTP_SOCKOPT_BINDX_ADD,
				    &any.in, sizeof(any.in))));
	/* Returns an association id, or EINPROGRESS. */
	ASSERT_NE(-EPERM, RET(setsockopt(fd[1], SOL_SCTP, SCTP_SOCKOPT_CONNECTX,
					 &peer.in, sizeof(peer.in))));

	CLOSE_GATE();
	ASSERT_EQ(-EPERM, RET(setsockopt(fd[2], SOL_SCTP,
					 SCTP_SOCKOPT_BINDX_ADD, &any.in,
					 sizeof(any.in))));
	ASSERT_EQ(-EPERM, RET(setsockopt(fd[3], SOL_SCTP,
					 SCTP_SOCKOPT_CONNECTX, &peer.in,
					 sizeof(peer.in))));
}

/* AF_UNIX, by socket type ("unix" is a predefined macro). */
FIXTURE(af_unix)
{
	struct servers srv;
};

FIXTURE_VARIANT(af_unix)
{
	int type;
	int pathname, abstract;
};

FIXTURE_VARIANT_ADD(af_unix, stream)
{
	.type = SOCK_STREAM,
	.pathname = SRV_UNIX_STREAM,
	.abstract = SRV_ABSTRACT_STREAM,
};

FIXTURE_VARIANT_ADD(af_unix, dgram)
{
	.type = SOCK_DGRAM,
	.pathname = SRV_UNIX_DGRAM,
	.abstract = SRV_ABSTRACT_DGRAM,
};

FIXTURE_SETUP(af_unix)
{
	servers_start(_metadata, &self->srv);
	become_user(_metadata);
}

FIXTURE_TEARDOWN_PARENT(af_unix)
{
	servers_stop(&self->srv);
}

static int unix_socket(const FIXTURE_VARIANT(af_unix) *const variant)
{
	int fd = socket(AF_UNIX, variant->type, 0);

	set_timeout(fd);
	return fd;
}

/*
 * Bind a pathname socket, reach it from a second socket, exchange "ping":
 * the filesystem, not the gate, decides who may use these.
 */
static void pathname_roundtrip(struct __test_metadata *const _metadata,
			       const FIXTURE_VARIANT(af_unix) *const variant,
			       const struct servers *srv, const char *name)
{
	struct addr a = test_path(srv, name);
	int s = unix_socket(variant), c = unix_socket(variant), p;

	ASSERT_EQ(0, bind_to(s, &a));
	if (variant->type == SOCK_STREAM)
		ASSERT_EQ(0, listen(s, 1));
	ASSERT_EQ(0, connect_to(c, &a));
	ASSERT_EQ(4, write(c, "ping", 4));
	p = variant->type == SOCK_STREAM ? accept(s, NULL, NULL) : s;
	ASSERT_LE(0, p);
	ASSERT_EQ(0, recv_ping(p));
	close(p);
	close(c);
	if (p != s)
		close(s);
}

TEST_F(af_unix, pathname_bind)
{
	pathname_roundtrip(_metadata, variant, &self->srv, "before");
	CLOSE_GATE();
	pathname_roundtrip(_metadata, variant, &self->srv, "after");
}

TEST_F(af_unix, abstract_bind)
{
	struct addr a = test_abstract("before"), b = test_abstract("after");
	int fd[2] = { unix_socket(variant), unix_socket(variant) };

	ASSERT_EQ(0, bind_to(fd[0], &a));

	CLOSE_GATE();
	ASSERT_EQ(-EPERM, bind_to(fd[1], &b));
}

/* bind() with only a family picks an abstract name: refused too. */
TEST_F(af_unix, autobind)
{
	const struct addr autobind = { .un.sun_family = AF_UNIX,
				       .len = sizeof(sa_family_t) };
	int fd[2] = { unix_socket(variant), unix_socket(variant) };
	struct addr got;

	ASSERT_EQ(0, bind_to(fd[0], &autobind));
	got = local_addr(fd[0]);
	ASSERT_LT(offsetof(struct sockaddr_un, sun_path), got.len);
	ASSERT_EQ('\0', got.un.sun_path[0]);

	CLOSE_GATE();
	ASSERT_EQ(-EPERM, bind_to(fd[1], &autobind));
	ASSERT_EQ(sizeof(sa_family_t), local_addr(fd[1]).len);
}

/* The root server's pathname socket: reachable (mode 0777). */
TEST_F(af_unix, pathname_connect)
{
	struct addr me = test_path(&self->srv, "client");
	const struct addr *srv = &self->srv.addr[variant->pathname];
	int fd = unix_socket(variant);

	CLOSE_GATE();
	/* A datagram client needs a name for the echo to come back. */
	if (variant->type == SOCK_DGRAM)
		ASSERT_EQ(0, bind_to(fd, &me));
	ASSERT_EQ(0, connect_to(fd, srv));
	EXPECT_ECHO(fd);
}

TEST_F(af_unix, abstract_connect)
{
	const struct addr *srv = &self->srv.addr[variant->abstract];
	struct addr me = test_path(&self->srv, "client");
	int fd[2] = { unix_socket(variant), unix_socket(variant) };

	if (variant->type == SOCK_DGRAM)
		ASSERT_EQ(0, bind_to(fd[0], &me));
	ASSERT_EQ(0, connect_to(fd[0], srv));
	EXPECT_ECHO(fd[0]);

	CLOSE_GATE();
	ASSERT_EQ(-EPERM, connect_to(fd[1], srv));
	/* Connected before the gate: still talks. */
	EXPECT_ECHO(fd[0]);
}

/* Addressed datagrams: pathname yes, abstract no. */
FIXTURE(unix_dgram)
{
	struct servers srv;
};

FIXTURE_SETUP(unix_dgram)
{
	servers_start(_metadata, &self->srv);
	become_user(_metadata);
}

FIXTURE_TEARDOWN_PARENT(unix_dgram)
{
	servers_stop(&self->srv);
}

TEST_F(unix_dgram, pathname_sendto)
{
	struct addr me = test_path(&self->srv, "client");
	const struct addr *srv = &self->srv.addr[SRV_UNIX_DGRAM];
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	CLOSE_GATE();
	ASSERT_EQ(0, bind_to(fd, &me));
	ASSERT_EQ(4, ping_to(fd, 0, srv));
	ASSERT_EQ(0, recv_ping(fd));
	ASSERT_EQ(4, ping_msg_to(fd, 0, srv));
	ASSERT_EQ(0, recv_ping(fd));
}

TEST_F(unix_dgram, abstract_sendto)
{
	const struct addr *srv = &self->srv.addr[SRV_ABSTRACT_DGRAM];
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	ASSERT_EQ(4, ping_to(fd, 0, srv));
	ASSERT_EQ(4, ping_msg_to(fd, 0, srv));

	CLOSE_GATE();
	ASSERT_EQ(-EPERM, ping_to(fd, 0, srv));
	ASSERT_EQ(-EPERM, ping_msg_to(fd, 0, srv));
}

/*
 * Kernel sockets are not the task's: creating a network namespace makes
 * the kernel open sockets of its own (ICMP, TCP control, rtnetlink) in the
 * caller's context, and must keep working when the caller is gated.  The
 * new namespace gives CAP_NET_RAW and a fresh address space, yet no
 * socket but AF_UNIX.  Sockets kept from the old namespace still talk.
 */
FIXTURE(netns)
{
	struct servers srv;
};

FIXTURE_SETUP(netns)
{
	servers_start(_metadata, &self->srv);
	become_user(_metadata);
}

FIXTURE_TEARDOWN_PARENT(netns)
{
	servers_stop(&self->srv);
}

static void sockets_in_new_netns(struct __test_metadata *const _metadata,
				 bool gated)
{
	const int expected = gated ? -EPERM : 0;
	int fd;

	if (!enter_own_netns(_metadata))
		return;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_EQ(expected, fd < 0 ? -errno : 0);
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	ASSERT_EQ(expected, fd < 0 ? -errno : 0);
	fd = socket(AF_NETLINK, SOCK_RAW, 0);
	ASSERT_EQ(expected, fd < 0 ? -errno : 0);
	ASSERT_LE(0, socket(AF_UNIX, SOCK_STREAM, 0));
}

TEST_F(netns, new_netns)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	pid_t pid;

	ASSERT_EQ(0, connect_to(fd, &self->srv.addr[SRV_TCP4]));
	/* Control, in an ungated child: the same namespace dance works. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		sockets_in_new_netns(_metadata, false);
		_exit(0);
	}
	ASSERT_EQ(0, wait_child(pid));
	if (_metadata->exit_code)
		return;

	CLOSE_GATE();
	sockets_in_new_netns(_metadata, true);
	EXPECT_ECHO(fd);
}

TEST_HARNESS_MAIN
