// SPDX-License-Identifier: GPL-2.0
/*
 * A socket kept across prctl(PR_SET_NETWORK, PR_NETWORK_OFF) keeps its
 * peer and its endpoints.  Behind the gate, a connected socket may still
 * send without an address; these tests check that no socket option and no
 * control message gives it an address, a route or an endpoint back:
 *
 * - a routing header (IPv6 segment routing or type 2, or an IPv4 source
 *   route option) sends the packet to the first segment, not to the peer:
 *   a kept UDPv6 socket connected to ::1 could reach any host.  This is
 *   the headline.  IPV6_2292PKTOPTIONS and IPV6_FLOWLABEL_MGR carry the
 *   same headers, hop-by-hop and destination options go with them;
 * - SO_BINDTODEVICE, *_UNICAST_IF, *_MULTICAST_IF and PKTINFO choose
 *   another interface or source address;
 * - multicast and anycast joins and PACKET_ADD_MEMBERSHIP make the socket
 *   receive for addresses it did not have: new endpoints.
 *
 * Each refusal has a control: the same call with the same input, on a
 * socket made the same way, by the same task just before the gate closed,
 * succeeds (where it cannot, it fails for a reason that is not the gate:
 * said where it happens).  Options that need CAP_NET_RAW or CAP_NET_ADMIN
 * get their control in a user and network namespace of the test's own.
 * After the refusals the kept socket still reaches its peer.  Options
 * that only tune what the socket already does (TTL, hop limit, leaving a
 * group, buffer sizes) stay allowed, and AF_UNIX sockets are not touched
 * at all.
 */

#define _GNU_SOURCE
#include <netinet/in.h>
/* After <netinet/in.h>: libc-compat.h then leaves glibc's types alone. */
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/io_uring.h>
#include <linux/ipv6.h>
#include <linux/seg6.h>
#include <net/if.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "common.h"
#include "../nosuid/uring.h"

#ifndef SO_BINDTOIFINDEX
#define SO_BINDTOIFINDEX 62
#endif
#ifndef IPV6_FLOWLABEL_MGR
#define IPV6_FLOWLABEL_MGR 32
#endif
#ifndef IPV6_FL_A_GET
#define IPV6_FL_A_GET 0
#define IPV6_FL_F_CREATE 1
#define IPV6_FL_S_EXCL 1
#endif
#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef IPV6_SRCRT_TYPE_2
#define IPV6_SRCRT_TYPE_2 2
#endif
#ifndef IPV6_SRCRT_TYPE_4
#define IPV6_SRCRT_TYPE_4 4
#endif

/* A control that fails for some other reason: anything but -EPERM. */
#define NOT_EPERM INT_MIN

#define ASSERT_CONTROL(expected, seen)                                   \
	do {                                                             \
		int __ctl = (seen);                                      \
		if ((expected) == NOT_EPERM) {                           \
			ASSERT_NE(-EPERM, __ctl);                        \
		} else {                                                 \
			ASSERT_EQ((expected), __ctl)                     \
			{                                                \
				TH_LOG("control: %s", __ctl < 0 ?        \
				       strerror(-__ctl) : "no error");   \
			}                                                \
		}                                                        \
	} while (0)

/*
 * A new network namespace has lo down.  Bring it up (127.0.0.1 and ::1
 * come with it) and give it 2001:db8::1/64: a host joins an anycast
 * address only within the prefix of one of its own addresses.
 */
static void own_netns_up(struct __test_metadata *const _metadata)
{
	struct in6_ifreq ifr6 = { .ifr6_prefixlen = 64 };
	struct ifreq ifr = {};
	int fd = socket(AF_INET6, SOCK_DGRAM, 0);

	ASSERT_LE(0, fd);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	ASSERT_EQ(0, ioctl(fd, SIOCGIFFLAGS, &ifr));
	ifr.ifr_flags |= IFF_UP;
	ASSERT_EQ(0, ioctl(fd, SIOCSIFFLAGS, &ifr));
	ifr6.ifr6_ifindex = if_nametoindex("lo");
	ASSERT_EQ(1, inet_pton(AF_INET6, "2001:db8::1", &ifr6.ifr6_addr));
	ASSERT_EQ(0, ioctl(fd, SIOCSIFADDR, &ifr6));
	close(fd);
}

/*
 * As root: the echo servers, then uid 1000 and nosuid.  With own_netns,
 * the servers run in the new namespace (made after nosuid, which refuses
 * a task holding capabilities, even in its own namespace).
 */
static bool kept_setup(struct __test_metadata *const _metadata,
		       struct servers *srv, bool own_netns)
{
	if (!own_netns) {
		servers_start(_metadata, srv);
		become_user(_metadata);
		return true;
	}
	become_user(_metadata);
	if (!enter_own_netns(_metadata))
		return false;
	own_netns_up(_metadata);
	servers_start(_metadata, srv);
	return true;
}

/* The kinds of kept sockets. */
enum kind { UDP4, UDP6, TCP4, TCP6, PACKET };

static const struct {
	int family, type, server;
} kinds[] = {
	[UDP4] = { AF_INET, SOCK_DGRAM, SRV_UDP4 },
	[UDP6] = { AF_INET6, SOCK_DGRAM, SRV_UDP6 },
	[TCP4] = { AF_INET, SOCK_STREAM, SRV_TCP4 },
	[TCP6] = { AF_INET6, SOCK_STREAM, SRV_TCP6 },
	[PACKET] = { AF_PACKET, SOCK_RAW },
};

/* An experimental EtherType (IEEE 802 local 1): nobody else's frames. */
#define KEPT_ETH_P 0x88b5

/*
 * A socket connected to its echo server; a packet socket (CAP_NET_RAW in
 * our own namespace) is bound to lo instead.
 */
static int kept_socket(struct __test_metadata *const _metadata,
		       const struct servers *srv, enum kind kind)
{
	int fd = socket(kinds[kind].family, kinds[kind].type, 0);

	ASSERT_LE(0, fd)
	{
		TH_LOG("socket: %s", strerror(errno));
	}
	set_timeout(fd);
	if (kind == PACKET) {
		struct sockaddr_ll ll = {
			.sll_family = AF_PACKET,
			.sll_protocol = htons(KEPT_ETH_P),
			.sll_ifindex = if_nametoindex("lo"),
		};

		ASSERT_EQ(0, bind(fd, (struct sockaddr *)&ll, sizeof(ll)));
	} else {
		ASSERT_EQ(0, connect_to(fd, &srv->addr[kinds[kind].server]));
	}
	return fd;
}

/* After the refusals: the kept socket still sends to its peer. */
static void still_works(struct __test_metadata *const _metadata, int fd,
			enum kind kind)
{
	/* To lo's address (all zero), from it: an Ethernet frame. */
	unsigned char frame[ETH_HLEN + 4] = {
		[12] = KEPT_ETH_P >> 8, [13] = KEPT_ETH_P & 0xff,
		'p', 'i', 'n', 'g',
	};

	if (kind == PACKET) {
		/* Bound, so no address: to the device it is bound to. */
		ASSERT_EQ(sizeof(frame), send(fd, frame, sizeof(frame), 0));
		return;
	}
	EXPECT_ECHO(fd);
}

/* Headers and option values, built by hand. */

/* A segment routing header (type 4) with one segment, ::1. */
union srh {
	struct ipv6_sr_hdr hdr;
	unsigned char bytes[sizeof(struct ipv6_sr_hdr) + sizeof(struct in6_addr)];
};

static void srh_one(union srh *s)
{
	memset(s, 0, sizeof(*s));
	/* Length in 8-octet units, not counting the first 8. */
	s->hdr.hdrlen = sizeof(*s) / 8 - 1;
	s->hdr.type = IPV6_SRCRT_TYPE_4;
	s->hdr.segments_left = 0;
	s->hdr.first_segment = 0;
	s->hdr.segments[0] = in6addr_loopback;
}

/* A type 2 (Mobile IPv6) routing header: one address, ::1. */
static struct rt2_hdr rt2_one(void)
{
	struct rt2_hdr r = {};

	r.rt_hdr.hdrlen = sizeof(r) / 8 - 1;
	r.rt_hdr.type = IPV6_SRCRT_TYPE_2;
	r.rt_hdr.segments_left = 1;
	r.addr = in6addr_loopback;
	return r;
}

/*
 * Type 2 is the only routing header 6.12 takes in a control message
 * (ip6_datagram_send_ctl()), and only with CONFIG_IPV6_MIP6; without it
 * every routing header in a cmsg, on UDP, is EINVAL, and a control of
 * such a cmsg can only show a refusal that is not the gate's.  Setting
 * the type 2 header as a sticky option tells which kernel this is.
 * Called before the gate: it makes a socket.
 */
static bool have_mip6(void)
{
	struct rt2_hdr r = rt2_one();
	int fd = socket(AF_INET6, SOCK_DGRAM, 0);
	bool ok;

	ok = !setsockopt(fd, IPPROTO_IPV6, IPV6_RTHDR, &r, sizeof(r));
	close(fd);
	return ok;
}

/* Hop-by-hop or destination options: one PadN of 4 octets. */
static const unsigned char opt_hdr[8] = { 0, 0, 1, 4, 0, 0, 0, 0 };
/* IPv4 record route, one slot: needs no privilege. */
static const unsigned char ip_rr[8] = { 7, 7, 4, 0, 0, 0, 0, 0 };
/* IPv4 loose source route via 127.0.0.1: CAP_NET_RAW (ip_options_get()). */
static const unsigned char ip_lsrr[8] = { 131, 7, 4, 127, 0, 0, 1, 0 };

/* The installed IPV6_RTHDR: its length, 0 when there is none. */
static int rthdr_len(int fd)
{
	unsigned char buf[256];
	socklen_t len = sizeof(buf);

	if (getsockopt(fd, IPPROTO_IPV6, IPV6_RTHDR, buf, &len))
		return -errno;
	return len;
}

/* "ping" without address and with one control message, ready to send. */
struct cmsg_msg {
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(64)];
	} u;
	struct iovec iov;
	struct msghdr msg;
};

static void fill_cmsg(struct cmsg_msg *m, int level, int type,
		      const void *data, size_t len)
{
	struct cmsghdr *c;

	memset(m, 0, sizeof(*m));
	m->iov = (struct iovec){ .iov_base = "ping", .iov_len = 4 };
	m->msg = (struct msghdr){
		.msg_iov = &m->iov,
		.msg_iovlen = 1,
		.msg_control = m->u.buf,
		.msg_controllen = CMSG_SPACE(len),
	};
	c = CMSG_FIRSTHDR(&m->msg);
	c->cmsg_level = level;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(c), data, len);
}

static int send_msg(int fd, struct cmsg_msg *m)
{
	ssize_t n = sendmsg(fd, &m->msg, MSG_NOSIGNAL);

	return n < 0 ? -errno : n;
}

/* The same through sendmmsg(): 4 when the one message went. */
static int send_mmsg(int fd, struct cmsg_msg *m)
{
	struct mmsghdr mm = { .msg_hdr = m->msg };
	int n = sendmmsg(fd, &mm, 1, MSG_NOSIGNAL);

	if (n < 0)
		return -errno;
	return n == 1 ? (int)mm.msg_len : -EIO;
}

static int send_cmsg(int fd, int level, int type, const void *data,
		     size_t len)
{
	struct cmsg_msg m;

	fill_cmsg(&m, level, type, data, len);
	return send_msg(fd, &m);
}

/* The control messages of setsockopt(IPV6_2292PKTOPTIONS): the same list. */
static int set_pktoptions(int fd, int type, const void *data, size_t len)
{
	struct cmsg_msg m;

	fill_cmsg(&m, SOL_IPV6, type, data, len);
	return RET(setsockopt(fd, SOL_IPV6, IPV6_2292PKTOPTIONS, m.u.buf,
			      m.msg.msg_controllen));
}

/*
 * The headline: an established TCPv6 connection and a connected UDPv6
 * socket, both to ::1, both kept from before the gate.
 */
FIXTURE(rthdr)
{
	struct servers srv;
	int fd[2];
	bool mip6;
};

FIXTURE_VARIANT(rthdr)
{
	enum kind kind;
};

FIXTURE_VARIANT_ADD(rthdr, udp6)
{
	.kind = UDP6,
};

FIXTURE_VARIANT_ADD(rthdr, tcp6)
{
	.kind = TCP6,
};

FIXTURE_SETUP(rthdr)
{
	servers_start(_metadata, &self->srv);
	become_user(_metadata);
	self->fd[0] = kept_socket(_metadata, &self->srv, variant->kind);
	self->fd[1] = kept_socket(_metadata, &self->srv, variant->kind);
	self->mip6 = have_mip6();
}

FIXTURE_TEARDOWN_PARENT(rthdr)
{
	servers_stop(&self->srv);
}

/*
 * What a cmsg routing header does in the control: TCP ignores control
 * messages that are not SOL_SOCKET (the send succeeds); UDP validates a
 * routing header, accepting type 2 only, with CONFIG_IPV6_MIP6.
 */
static int rthdr_cmsg_control(const FIXTURE_VARIANT(rthdr) *const variant,
			      bool mip6, int rt_type)
{
	if (variant->kind == TCP6)
		return 4;
	return rt_type == IPV6_SRCRT_TYPE_2 && mip6 ? 4 : -EINVAL;
}

TEST_F(rthdr, setsockopt_srh)
{
	union srh s;

	srh_one(&s);
	ASSERT_EQ(0, RET(setsockopt(self->fd[0], SOL_IPV6, IPV6_RTHDR, &s,
				    sizeof(s))));
	/* Installed: the next packet would go to the segment. */
	ASSERT_EQ(sizeof(s), rthdr_len(self->fd[0]));

	CLOSE_GATE();
	ASSERT_EQ(-EPERM, RET(setsockopt(self->fd[1], SOL_IPV6, IPV6_RTHDR,
					 &s, sizeof(s))));
	ASSERT_EQ(0, rthdr_len(self->fd[1]));
	still_works(_metadata, self->fd[1], variant->kind);
}

/*
 * As a socket option, RFC 2292's IPV6_RTHDR (IPV6_2292RTHDR) only asks
 * to receive routing headers, like IPV6_RECVRTHDR: it stays allowed.
 */
TEST_F(rthdr, setsockopt_2292rthdr_allowed)
{
	const int one = 1;

	ASSERT_EQ(0, RET(setsockopt(self->fd[0], SOL_IPV6, IPV6_2292RTHDR,
				    &one, sizeof(one))));

	CLOSE_GATE();
	ASSERT_EQ(0, RET(setsockopt(self->fd[1], SOL_IPV6,
				    IPV6_2292RTHDR, &one, sizeof(one))));
	still_works(_metadata, self->fd[1], variant->kind);
}

/* RFC 2292's sticky options: a list of control messages, here a routing header. */
TEST_F(rthdr, pktoptions_rthdr)
{
	struct rt2_hdr r = rt2_one();

	if (!self->mip6)
		TH_LOG("no CONFIG_IPV6_MIP6: the control can only be EINVAL");
	ASSERT_CONTROL(self->mip6 ? 0 : -EINVAL,
		       set_pktoptions(self->fd[0], IPV6_2292RTHDR, &r,
				      sizeof(r)));

	CLOSE_GATE();
	ASSERT_EQ(-EPERM, set_pktoptions(self->fd[1], IPV6_2292RTHDR, &r,
					 sizeof(r)));
	ASSERT_EQ(0, rthdr_len(self->fd[1]));
	still_works(_metadata, self->fd[1], variant->kind);
}

/* The same option with a source address: refused whatever it carries. */
TEST_F(rthdr, pktoptions_pktinfo)
{
	const struct in6_pktinfo pi = { .ipi6_addr = in6addr_loopback };

	ASSERT_EQ(0, set_pktoptions(self->fd[0], IPV6_2292PKTINFO, &pi,
				    sizeof(pi)));

	CLOSE_GATE();
	ASSERT_EQ(-EPERM, set_pktoptions(self->fd[1], IPV6_2292PKTINFO, &pi,
					 sizeof(pi)));
	still_works(_metadata, self->fd[1], variant->kind);
}

/*
 * A flow label lease can carry extension headers (routing header
 * included) that every packet sent with the label gets: refused as a
 * whole.  The control leases a new label chosen by the kernel.
 */
TEST_F(rthdr, flowlabel_mgr)
{
	struct in6_flowlabel_req req = {
		.flr_dst = in6addr_loopback,
		.flr_action = IPV6_FL_A_GET,
		.flr_share = IPV6_FL_S_EXCL,
		.flr_flags = IPV6_FL_F_CREATE,
	};
	struct in6_flowlabel_req gated = req;

	ASSERT_EQ(0, RET(setsockopt(self->fd[0], SOL_IPV6, IPV6_FLOWLABEL_MGR,
				    &req, sizeof(req))));
	ASSERT_NE(0, req.flr_label);

	CLOSE_GATE();
	ASSERT_EQ(-EPERM, RET(setsockopt(self->fd[1], SOL_IPV6,
					 IPV6_FLOWLABEL_MGR, &gated,
					 sizeof(gated))));
	ASSERT_EQ(0, gated.flr_label);
	still_works(_metadata, self->fd[1], variant->kind);
}

static void rthdr_cmsg(struct __test_metadata *const _metadata,
		       FIXTURE_DATA(rthdr) *self,
		       const FIXTURE_VARIANT(rthdr) *const variant, int type,
		       const void *hdr, size_t len, int rt_type)
{
	int control = rthdr_cmsg_control(variant, self->mip6, rt_type);

	/* Type 2 needs CONFIG_IPV6_MIP6; type 4 is never taken in a cmsg. */
	if (control < 0)
		TH_LOG("UDP refuses this routing header in a cmsg: the control can only be EINVAL");
	ASSERT_CONTROL(control,
		       send_cmsg(self->fd[0], SOL_IPV6, type, hdr, len));

	CLOSE_GATE();
	ASSERT_EQ(-EPERM, send_cmsg(self->fd[1], SOL_IPV6, type, hdr, len));
	still_works(_metadata, self->fd[1], variant->kind);
}

TEST_F(rthdr, cmsg_rthdr)
{
	struct rt2_hdr r = rt2_one();

	rthdr_cmsg(_metadata, self, variant, IPV6_RTHDR, &r, sizeof(r),
		   IPV6_SRCRT_TYPE_2);
}

TEST_F(rthdr, cmsg_2292rthdr)
{
	struct rt2_hdr r = rt2_one();

	rthdr_cmsg(_metadata, self, variant, IPV6_2292RTHDR, &r, sizeof(r),
		   IPV6_SRCRT_TYPE_2);
}

/* The segment routing header itself, which 6.12 takes only as a socket option. */
TEST_F(rthdr, cmsg_srh)
{
	union srh s;

	srh_one(&s);
	rthdr_cmsg(_metadata, self, variant, IPV6_RTHDR, &s, sizeof(s),
		   IPV6_SRCRT_TYPE_4);
}

/* Option values, for the tables below. */
enum value {
	V_INT,		/* ival */
	V_NULL,		/* no value at all */
	V_IFNAME,	/* "lo" */
	V_IFINDEX,	/* lo's index */
	V_IFINDEX_BE,	/* lo's index, big endian (*_UNICAST_IF) */
	V_MREQN,	/* 224.0.0.251 on lo */
	V_MREQN_IF,	/* lo only (IP_MULTICAST_IF) */
	V_MREQ_SOURCE,	/* 224.0.0.251 on 127.0.0.1, source 192.0.2.1 */
	V_MSFILTER,	/* 224.0.0.251 on 127.0.0.1, exclude nothing */
	V_GROUP4,	/* 224.0.0.251 on lo */
	V_GROUP_SOURCE4, /* and source 192.0.2.1 */
	V_GROUP_FILTER4, /* exclude nothing */
	V_MREQ6,	/* ff02::fb on lo */
	V_GROUP6,
	V_GROUP_SOURCE6, /* source 2001:db8::2 */
	V_GROUP_FILTER6,
	V_ANYCAST6,	/* 2001:db8::2 on lo */
	V_PKTINFO4,	/* lo, from 127.0.0.1 */
	V_PKTINFO6,	/* from ::1 */
	V_IP_RR,
	V_IP_LSRR,
	V_OPT_HDR6,
	V_PACKET_MREQ,	/* all multicast on lo */
	V_U16,		/* ival */
	V_U32,		/* ival */
};

union value_buf {
	int i;
	__u16 u16;
	__u32 u32;
	char name[IFNAMSIZ];
	struct ip_mreqn mreqn;
	struct ip_mreq_source mreqs;
	struct ip_msfilter msf;
	struct group_req gr;
	struct group_source_req gsr;
	struct group_filter gf;
	struct ipv6_mreq mreq6;
	struct in_pktinfo pi4;
	struct in6_pktinfo pi6;
	struct packet_mreq pmr;
	unsigned char bytes[8];
};

static void set_in4(struct sockaddr_storage *ss, const char *a)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;

	in->sin_family = AF_INET;
	inet_pton(AF_INET, a, &in->sin_addr);
}

static void set_in6(struct sockaddr_storage *ss, const char *a)
{
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	in6->sin6_family = AF_INET6;
	inet_pton(AF_INET6, a, &in6->sin6_addr);
}

#define GROUP4 "224.0.0.251"
#define GROUP6 "ff02::fb"

/* Fill *v; return the option length. */
static socklen_t make_value(enum value kind, int ival, int lo,
			    union value_buf *v)
{
	memset(v, 0, sizeof(*v));
	switch (kind) {
	case V_INT:
		v->i = ival;
		return sizeof(v->i);
	case V_NULL:
		return 0;
	case V_IFNAME:
		snprintf(v->name, sizeof(v->name), "lo");
		return strlen(v->name) + 1;
	case V_IFINDEX:
		v->i = lo;
		return sizeof(v->i);
	case V_IFINDEX_BE:
		v->i = htonl(lo);
		return sizeof(v->i);
	case V_MREQN:
	case V_MREQN_IF:
		if (kind == V_MREQN)
			inet_pton(AF_INET, GROUP4, &v->mreqn.imr_multiaddr);
		v->mreqn.imr_ifindex = lo;
		return sizeof(v->mreqn);
	case V_MREQ_SOURCE:
		inet_pton(AF_INET, GROUP4, &v->mreqs.imr_multiaddr);
		v->mreqs.imr_interface.s_addr = htonl(INADDR_LOOPBACK);
		inet_pton(AF_INET, "192.0.2.1", &v->mreqs.imr_sourceaddr);
		return sizeof(v->mreqs);
	case V_MSFILTER:
		inet_pton(AF_INET, GROUP4, &v->msf.imsf_multiaddr);
		v->msf.imsf_interface.s_addr = htonl(INADDR_LOOPBACK);
		v->msf.imsf_fmode = MCAST_EXCLUDE;
		return sizeof(v->msf);
	case V_GROUP4:
	case V_GROUP6:
		v->gr.gr_interface = lo;
		if (kind == V_GROUP4)
			set_in4(&v->gr.gr_group, GROUP4);
		else
			set_in6(&v->gr.gr_group, GROUP6);
		return sizeof(v->gr);
	case V_GROUP_SOURCE4:
		v->gsr.gsr_interface = lo;
		set_in4(&v->gsr.gsr_group, GROUP4);
		set_in4(&v->gsr.gsr_source, "192.0.2.1");
		return sizeof(v->gsr);
	case V_GROUP_SOURCE6:
		v->gsr.gsr_interface = lo;
		set_in6(&v->gsr.gsr_group, GROUP6);
		set_in6(&v->gsr.gsr_source, "2001:db8::2");
		return sizeof(v->gsr);
	case V_GROUP_FILTER4:
	case V_GROUP_FILTER6:
		v->gf.gf_interface = lo;
		if (kind == V_GROUP_FILTER4)
			set_in4(&v->gf.gf_group, GROUP4);
		else
			set_in6(&v->gf.gf_group, GROUP6);
		v->gf.gf_fmode = MCAST_EXCLUDE;
		return sizeof(v->gf);
	case V_MREQ6:
		inet_pton(AF_INET6, GROUP6, &v->mreq6.ipv6mr_multiaddr);
		v->mreq6.ipv6mr_interface = lo;
		return sizeof(v->mreq6);
	case V_ANYCAST6:
		inet_pton(AF_INET6, "2001:db8::2", &v->mreq6.ipv6mr_multiaddr);
		v->mreq6.ipv6mr_interface = lo;
		return sizeof(v->mreq6);
	case V_PKTINFO4:
		v->pi4.ipi_ifindex = lo;
		v->pi4.ipi_spec_dst.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(v->pi4);
	case V_PKTINFO6:
		v->pi6.ipi6_addr = in6addr_loopback;
		return sizeof(v->pi6);
	case V_IP_RR:
		memcpy(v->bytes, ip_rr, sizeof(ip_rr));
		return sizeof(ip_rr);
	case V_IP_LSRR:
		memcpy(v->bytes, ip_lsrr, sizeof(ip_lsrr));
		return sizeof(ip_lsrr);
	case V_OPT_HDR6:
		memcpy(v->bytes, opt_hdr, sizeof(opt_hdr));
		return sizeof(opt_hdr);
	case V_PACKET_MREQ:
		v->pmr.mr_ifindex = lo;
		v->pmr.mr_type = PACKET_MR_ALLMULTI;
		return sizeof(v->pmr);
	case V_U16:
		v->u16 = ival;
		return sizeof(v->u16);
	case V_U32:
		v->u32 = ival;
		return sizeof(v->u32);
	}
	return 0;
}

/* What a socket does before its control and its gated twin. */
enum prep {
	P_NONE,
	P_JOIN4,	/* MCAST_JOIN_GROUP 224.0.0.251 on lo */
	P_JOIN4_BLOCK,	/* and MCAST_BLOCK_SOURCE 192.0.2.1 */
	P_JOIN6,
	P_JOIN6_BLOCK,
};

static void prepare(struct __test_metadata *const _metadata, int fd,
		    enum prep prep, int lo)
{
	const int level = prep >= P_JOIN6 ? SOL_IPV6 : SOL_IP;
	union value_buf v;
	socklen_t len;

	if (prep == P_NONE)
		return;
	len = make_value(level == SOL_IP ? V_GROUP4 : V_GROUP6, 0, lo, &v);
	ASSERT_EQ(0, RET(setsockopt(fd, level, MCAST_JOIN_GROUP, &v, len)));
	if (prep != P_JOIN4_BLOCK && prep != P_JOIN6_BLOCK)
		return;
	len = make_value(level == SOL_IP ? V_GROUP_SOURCE4 : V_GROUP_SOURCE6,
			 0, lo, &v);
	ASSERT_EQ(0, RET(setsockopt(fd, level, MCAST_BLOCK_SOURCE, &v, len)));
}

/*
 * Socket options on a kept socket.  The control is the same option on a
 * twin socket before the gate; behind it, the option is refused (EPERM)
 * or, for the allowed ones, gives the control's result again.
 */
FIXTURE(sockopt)
{
	struct servers srv;
	int fd[2];
	int lo;
};

FIXTURE_VARIANT(sockopt)
{
	enum kind kind;
	/* The option needs CAP_NET_RAW or CAP_NET_ADMIN: in a netns of our own. */
	bool own_netns;
	int level, optname;
	enum value value;
	int ival;
	enum prep prep;
	/* 0, or NOT_EPERM where the control cannot succeed. */
	int control;
	/* Still allowed behind the gate. */
	bool allowed;
};

/* clang-format off */
/* Refused: interface, source address, route. */
FIXTURE_VARIANT_ADD(sockopt, bindtodevice_udp4) {
	.kind = UDP4, .level = SOL_SOCKET, .optname = SO_BINDTODEVICE,
	.value = V_IFNAME,
};

FIXTURE_VARIANT_ADD(sockopt, bindtodevice_udp6) {
	.kind = UDP6, .level = SOL_SOCKET, .optname = SO_BINDTODEVICE,
	.value = V_IFNAME,
};

FIXTURE_VARIANT_ADD(sockopt, bindtodevice_tcp4) {
	.kind = TCP4, .level = SOL_SOCKET, .optname = SO_BINDTODEVICE,
	.value = V_IFNAME,
};

FIXTURE_VARIANT_ADD(sockopt, bindtodevice_tcp6) {
	.kind = TCP6, .level = SOL_SOCKET, .optname = SO_BINDTODEVICE,
	.value = V_IFNAME,
};

FIXTURE_VARIANT_ADD(sockopt, bindtoifindex_udp4) {
	.kind = UDP4, .level = SOL_SOCKET, .optname = SO_BINDTOIFINDEX,
	.value = V_IFINDEX,
};

FIXTURE_VARIANT_ADD(sockopt, bindtoifindex_tcp6) {
	.kind = TCP6, .level = SOL_SOCKET, .optname = SO_BINDTOIFINDEX,
	.value = V_IFINDEX,
};

FIXTURE_VARIANT_ADD(sockopt, ip_unicast_if) {
	.kind = UDP4, .level = SOL_IP, .optname = IP_UNICAST_IF,
	.value = V_IFINDEX_BE,
};

FIXTURE_VARIANT_ADD(sockopt, ip_multicast_if) {
	.kind = UDP4, .level = SOL_IP, .optname = IP_MULTICAST_IF,
	.value = V_MREQN_IF,
};

FIXTURE_VARIANT_ADD(sockopt, ipv6_unicast_if) {
	.kind = UDP6, .level = SOL_IPV6, .optname = IPV6_UNICAST_IF,
	.value = V_IFINDEX_BE,
};

FIXTURE_VARIANT_ADD(sockopt, ipv6_multicast_if) {
	.kind = UDP6, .level = SOL_IPV6, .optname = IPV6_MULTICAST_IF,
	.value = V_IFINDEX,
};

FIXTURE_VARIANT_ADD(sockopt, ipv6_pktinfo_udp6) {
	.kind = UDP6, .level = SOL_IPV6, .optname = IPV6_PKTINFO,
	.value = V_PKTINFO6,
};

FIXTURE_VARIANT_ADD(sockopt, ipv6_pktinfo_tcp6) {
	.kind = TCP6, .level = SOL_IPV6, .optname = IPV6_PKTINFO,
	.value = V_PKTINFO6,
};

/* IPv4 options: record route needs no privilege, a source route does. */
FIXTURE_VARIANT_ADD(sockopt, ip_options_rr_udp4) {
	.kind = UDP4, .level = SOL_IP, .optname = IP_OPTIONS,
	.value = V_IP_RR,
};

FIXTURE_VARIANT_ADD(sockopt, ip_options_rr_tcp4) {
	.kind = TCP4, .level = SOL_IP, .optname = IP_OPTIONS,
	.value = V_IP_RR,
};

FIXTURE_VARIANT_ADD(sockopt, ip_options_lsrr_udp4) {
	.kind = UDP4, .own_netns = true, .level = SOL_IP,
	.optname = IP_OPTIONS, .value = V_IP_LSRR,
};

FIXTURE_VARIANT_ADD(sockopt, ip_options_lsrr_tcp4) {
	.kind = TCP4, .own_netns = true, .level = SOL_IP,
	.optname = IP_OPTIONS, .value = V_IP_LSRR,
};

/* IPv6 extension headers other than routing: CAP_NET_RAW. */
FIXTURE_VARIANT_ADD(sockopt, ipv6_hopopts_udp6) {
	.kind = UDP6, .own_netns = true, .level = SOL_IPV6,
	.optname = IPV6_HOPOPTS, .value = V_OPT_HDR6,
};

FIXTURE_VARIANT_ADD(sockopt, ipv6_hopopts_tcp6) {
	.kind = TCP6, .own_netns = true, .level = SOL_IPV6,
	.optname = IPV6_HOPOPTS, .value = V_OPT_HDR6,
};

FIXTURE_VARIANT_ADD(sockopt, ipv6_dstopts) {
	.kind = UDP6, .own_netns = true, .level = SOL_IPV6,
	.optname = IPV6_DSTOPTS, .value = V_OPT_HDR6,
};

FIXTURE_VARIANT_ADD(sockopt, ipv6_rthdrdstopts) {
	.kind = UDP6, .own_netns = true, .level = SOL_IPV6,
	.optname = IPV6_RTHDRDSTOPTS, .value = V_OPT_HDR6,
};

/* RFC 2292's names of these only ask to receive them: allowed. */
FIXTURE_VARIANT_ADD(sockopt, ipv6_2292hopopts) {
	.kind = UDP6, .level = SOL_IPV6, .optname = IPV6_2292HOPOPTS,
	.value = V_INT, .ival = 1, .allowed = true,
};

FIXTURE_VARIANT_ADD(sockopt, ipv6_2292dstopts) {
	.kind = UDP6, .level = SOL_IPV6, .optname = IPV6_2292DSTOPTS,
	.value = V_INT, .ival = 1, .allowed = true,
};

/* Without XFRM the control is ENOPROTOOPT, with it 0 (policy cleared). */
FIXTURE_VARIANT_ADD(sockopt, ip_ipsec_policy) {
	.kind = UDP4, .own_netns = true, .level = SOL_IP,
	.optname = IP_IPSEC_POLICY, .value = V_NULL, .control = NOT_EPERM,
};

FIXTURE_VARIANT_ADD(sockopt, ip_xfrm_policy) {
	.kind = UDP4, .own_netns = true, .level = SOL_IP,
	.optname = IP_XFRM_POLICY, .value = V_NULL, .control = NOT_EPERM,
};

FIXTURE_VARIANT_ADD(sockopt, ipv6_ipsec_policy) {
	.kind = UDP6, .own_netns = true, .level = SOL_IPV6,
	.optname = IPV6_IPSEC_POLICY, .value = V_NULL, .control = NOT_EPERM,
};

FIXTURE_VARIANT_ADD(sockopt, ipv6_xfrm_policy) {
	.kind = UDP6, .own_netns = true, .level = SOL_IPV6,
	.optname = IPV6_XFRM_POLICY, .value = V_NULL, .control = NOT_EPERM,
};

/* Refused: new endpoints. */
FIXTURE_VARIANT_ADD(sockopt, ip_add_membership) {
	.kind = UDP4, .level = SOL_IP, .optname = IP_ADD_MEMBERSHIP,
	.value = V_MREQN,
};

/* An IPv6 socket takes SOL_IP options too. */
FIXTURE_VARIANT_ADD(sockopt, ip_add_membership_udp6) {
	.kind = UDP6, .level = SOL_IP, .optname = IP_ADD_MEMBERSHIP,
	.value = V_MREQN,
};

FIXTURE_VARIANT_ADD(sockopt, ip_add_source_membership) {
	.kind = UDP4, .level = SOL_IP, .optname = IP_ADD_SOURCE_MEMBERSHIP,
	.value = V_MREQ_SOURCE,
};

FIXTURE_VARIANT_ADD(sockopt, ip_unblock_source) {
	.kind = UDP4, .level = SOL_IP, .optname = IP_UNBLOCK_SOURCE,
	.value = V_MREQ_SOURCE, .prep = P_JOIN4_BLOCK,
};

FIXTURE_VARIANT_ADD(sockopt, ip_msfilter) {
	.kind = UDP4, .level = SOL_IP, .optname = IP_MSFILTER,
	.value = V_MSFILTER, .prep = P_JOIN4,
};

FIXTURE_VARIANT_ADD(sockopt, mcast_join_group4) {
	.kind = UDP4, .level = SOL_IP, .optname = MCAST_JOIN_GROUP,
	.value = V_GROUP4,
};

FIXTURE_VARIANT_ADD(sockopt, mcast_join_source_group4) {
	.kind = UDP4, .level = SOL_IP, .optname = MCAST_JOIN_SOURCE_GROUP,
	.value = V_GROUP_SOURCE4,
};

FIXTURE_VARIANT_ADD(sockopt, mcast_unblock_source4) {
	.kind = UDP4, .level = SOL_IP, .optname = MCAST_UNBLOCK_SOURCE,
	.value = V_GROUP_SOURCE4, .prep = P_JOIN4_BLOCK,
};

FIXTURE_VARIANT_ADD(sockopt, mcast_msfilter4) {
	.kind = UDP4, .level = SOL_IP, .optname = MCAST_MSFILTER,
	.value = V_GROUP_FILTER4, .prep = P_JOIN4,
};

FIXTURE_VARIANT_ADD(sockopt, ipv6_add_membership) {
	.kind = UDP6, .level = SOL_IPV6, .optname = IPV6_ADD_MEMBERSHIP,
	.value = V_MREQ6,
};

FIXTURE_VARIANT_ADD(sockopt, mcast_join_group6) {
	.kind = UDP6, .level = SOL_IPV6, .optname = MCAST_JOIN_GROUP,
	.value = V_GROUP6,
};

FIXTURE_VARIANT_ADD(sockopt, mcast_join_source_group6) {
	.kind = UDP6, .level = SOL_IPV6, .optname = MCAST_JOIN_SOURCE_GROUP,
	.value = V_GROUP_SOURCE6,
};

FIXTURE_VARIANT_ADD(sockopt, mcast_unblock_source6) {
	.kind = UDP6, .level = SOL_IPV6, .optname = MCAST_UNBLOCK_SOURCE,
	.value = V_GROUP_SOURCE6, .prep = P_JOIN6_BLOCK,
};

FIXTURE_VARIANT_ADD(sockopt, mcast_msfilter6) {
	.kind = UDP6, .level = SOL_IPV6, .optname = MCAST_MSFILTER,
	.value = V_GROUP_FILTER6, .prep = P_JOIN6,
};

/* CAP_NET_ADMIN. */
FIXTURE_VARIANT_ADD(sockopt, ipv6_join_anycast) {
	.kind = UDP6, .own_netns = true, .level = SOL_IPV6,
	.optname = IPV6_JOIN_ANYCAST, .value = V_ANYCAST6,
};

/* A packet socket needs CAP_NET_RAW. */
FIXTURE_VARIANT_ADD(sockopt, packet_add_membership) {
	.kind = PACKET, .own_netns = true, .level = SOL_PACKET,
	.optname = PACKET_ADD_MEMBERSHIP, .value = V_PACKET_MREQ,
};

/* Allowed: they change nothing of where packets go or come from. */
FIXTURE_VARIANT_ADD(sockopt, ip_ttl_udp4) {
	.kind = UDP4, .level = SOL_IP, .optname = IP_TTL,
	.value = V_INT, .ival = 32, .allowed = true,
};

FIXTURE_VARIANT_ADD(sockopt, ip_ttl_tcp4) {
	.kind = TCP4, .level = SOL_IP, .optname = IP_TTL,
	.value = V_INT, .ival = 32, .allowed = true,
};

FIXTURE_VARIANT_ADD(sockopt, ip_tos) {
	.kind = UDP4, .level = SOL_IP, .optname = IP_TOS,
	.value = V_INT, .ival = 0x10, .allowed = true,
};

FIXTURE_VARIANT_ADD(sockopt, ipv6_unicast_hops_udp6) {
	.kind = UDP6, .level = SOL_IPV6, .optname = IPV6_UNICAST_HOPS,
	.value = V_INT, .ival = 32, .allowed = true,
};

FIXTURE_VARIANT_ADD(sockopt, ipv6_unicast_hops_tcp6) {
	.kind = TCP6, .level = SOL_IPV6, .optname = IPV6_UNICAST_HOPS,
	.value = V_INT, .ival = 32, .allowed = true,
};

FIXTURE_VARIANT_ADD(sockopt, ipv6_tclass) {
	.kind = UDP6, .level = SOL_IPV6, .optname = IPV6_TCLASS,
	.value = V_INT, .ival = 0x10, .allowed = true,
};

FIXTURE_VARIANT_ADD(sockopt, so_rcvbuf) {
	.kind = UDP4, .level = SOL_SOCKET, .optname = SO_RCVBUF,
	.value = V_INT, .ival = 65536, .allowed = true,
};

FIXTURE_VARIANT_ADD(sockopt, tcp_nodelay) {
	.kind = TCP4, .level = IPPROTO_TCP, .optname = TCP_NODELAY,
	.value = V_INT, .ival = 1, .allowed = true,
};

FIXTURE_VARIANT_ADD(sockopt, ip_drop_membership) {
	.kind = UDP4, .level = SOL_IP, .optname = IP_DROP_MEMBERSHIP,
	.value = V_MREQN, .prep = P_JOIN4, .allowed = true,
};

FIXTURE_VARIANT_ADD(sockopt, ip_block_source) {
	.kind = UDP4, .level = SOL_IP, .optname = IP_BLOCK_SOURCE,
	.value = V_MREQ_SOURCE, .prep = P_JOIN4, .allowed = true,
};

FIXTURE_VARIANT_ADD(sockopt, ipv6_drop_membership) {
	.kind = UDP6, .level = SOL_IPV6, .optname = IPV6_DROP_MEMBERSHIP,
	.value = V_MREQ6, .prep = P_JOIN6, .allowed = true,
};

FIXTURE_VARIANT_ADD(sockopt, mcast_leave_group6) {
	.kind = UDP6, .level = SOL_IPV6, .optname = MCAST_LEAVE_GROUP,
	.value = V_GROUP6, .prep = P_JOIN6, .allowed = true,
};

/* clang-format on */

FIXTURE_SETUP(sockopt)
{
	int i;

	if (!kept_setup(_metadata, &self->srv, variant->own_netns))
		return;
	self->lo = if_nametoindex("lo");
	ASSERT_LT(0, self->lo);
	for (i = 0; i < 2; i++) {
		self->fd[i] = kept_socket(_metadata, &self->srv, variant->kind);
		prepare(_metadata, self->fd[i], variant->prep, self->lo);
	}
}

FIXTURE_TEARDOWN_PARENT(sockopt)
{
	servers_stop(&self->srv);
}

static int set_value(FIXTURE_DATA(sockopt) *self,
		     const FIXTURE_VARIANT(sockopt) *const variant, int fd)
{
	union value_buf v;
	socklen_t len = make_value(variant->value, variant->ival, self->lo, &v);

	return RET(setsockopt(fd, variant->level, variant->optname,
			      len ? &v : NULL, len));
}

TEST_F(sockopt, setsockopt)
{
	int control = set_value(self, variant, self->fd[0]);

	ASSERT_CONTROL(variant->control, control);

	CLOSE_GATE();
	ASSERT_EQ(variant->allowed ? control : -EPERM,
		  set_value(self, variant, self->fd[1]));
	still_works(_metadata, self->fd[1], variant->kind);
}

/*
 * Control messages on sendmsg() without an address: only the ones that
 * set what a socket option allowed behind the gate could set (TTL, hop
 * limit, traffic class, DF, GSO size, and SOL_SOCKET ones) pass.  TCP
 * ignores the others, so its control always sends.
 */
FIXTURE(cmsg)
{
	struct servers srv;
	int fd[2];
	int lo;
};

FIXTURE_VARIANT(cmsg)
{
	enum kind kind;
	bool own_netns;
	int level, type;
	enum value value;
	int ival;
	/* The control's result: 4 (sent), -EINVAL. */
	int control;
	/* A control buffer longer than the cmsg it holds says. */
	bool malformed;
	bool allowed;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(cmsg, ip_pktinfo) {
	.kind = UDP4, .level = SOL_IP, .type = IP_PKTINFO,
	.value = V_PKTINFO4, .control = 4,
};

FIXTURE_VARIANT_ADD(cmsg, ip_pktinfo_tcp4) {
	.kind = TCP4, .level = SOL_IP, .type = IP_PKTINFO,
	.value = V_PKTINFO4, .control = 4,
};

FIXTURE_VARIANT_ADD(cmsg, ip_retopts_rr) {
	.kind = UDP4, .level = SOL_IP, .type = IP_RETOPTS,
	.value = V_IP_RR, .control = 4,
};

FIXTURE_VARIANT_ADD(cmsg, ip_retopts_lsrr) {
	.kind = UDP4, .own_netns = true, .level = SOL_IP, .type = IP_RETOPTS,
	.value = V_IP_LSRR, .control = 4,
};

FIXTURE_VARIANT_ADD(cmsg, ipv6_pktinfo) {
	.kind = UDP6, .level = SOL_IPV6, .type = IPV6_PKTINFO,
	.value = V_PKTINFO6, .control = 4,
};

FIXTURE_VARIANT_ADD(cmsg, ipv6_2292pktinfo) {
	.kind = UDP6, .level = SOL_IPV6, .type = IPV6_2292PKTINFO,
	.value = V_PKTINFO6, .control = 4,
};

/* Traffic class and flow label 0: valid without a leased label. */
FIXTURE_VARIANT_ADD(cmsg, ipv6_flowinfo) {
	.kind = UDP6, .level = SOL_IPV6, .type = IPV6_FLOWINFO,
	.value = V_U32, .control = 4,
};

FIXTURE_VARIANT_ADD(cmsg, ipv6_hopopts) {
	.kind = UDP6, .own_netns = true, .level = SOL_IPV6,
	.type = IPV6_HOPOPTS, .value = V_OPT_HDR6, .control = 4,
};

FIXTURE_VARIANT_ADD(cmsg, ipv6_2292hopopts) {
	.kind = UDP6, .own_netns = true, .level = SOL_IPV6,
	.type = IPV6_2292HOPOPTS, .value = V_OPT_HDR6, .control = 4,
};

FIXTURE_VARIANT_ADD(cmsg, ipv6_dstopts) {
	.kind = UDP6, .own_netns = true, .level = SOL_IPV6,
	.type = IPV6_DSTOPTS, .value = V_OPT_HDR6, .control = 4,
};

FIXTURE_VARIANT_ADD(cmsg, ipv6_2292dstopts) {
	.kind = UDP6, .own_netns = true, .level = SOL_IPV6,
	.type = IPV6_2292DSTOPTS, .value = V_OPT_HDR6, .control = 4,
};

FIXTURE_VARIANT_ADD(cmsg, ipv6_rthdrdstopts) {
	.kind = UDP6, .own_netns = true, .level = SOL_IPV6,
	.type = IPV6_RTHDRDSTOPTS, .value = V_OPT_HDR6, .control = 4,
};

/* A level UDP does not look at: ignored before, refused behind the gate. */
FIXTURE_VARIANT_ADD(cmsg, sol_tcp) {
	.kind = UDP4, .level = SOL_TCP, .type = TCP_NODELAY,
	.value = V_INT, .ival = 1, .control = 4,
};

FIXTURE_VARIANT_ADD(cmsg, malformed_udp4) {
	.kind = UDP4, .level = SOL_IP, .type = IP_TTL,
	.value = V_INT, .ival = 64, .malformed = true, .control = -EINVAL,
};

FIXTURE_VARIANT_ADD(cmsg, malformed_udp6) {
	.kind = UDP6, .level = SOL_IPV6, .type = IPV6_HOPLIMIT,
	.value = V_INT, .ival = 64, .malformed = true, .control = -EINVAL,
};

/* Allowed. */
FIXTURE_VARIANT_ADD(cmsg, ip_ttl) {
	.kind = UDP4, .level = SOL_IP, .type = IP_TTL,
	.value = V_INT, .ival = 64, .control = 4, .allowed = true,
};

FIXTURE_VARIANT_ADD(cmsg, ip_tos) {
	.kind = UDP4, .level = SOL_IP, .type = IP_TOS,
	.value = V_INT, .ival = 0x10, .control = 4, .allowed = true,
};

FIXTURE_VARIANT_ADD(cmsg, ipv6_hoplimit) {
	.kind = UDP6, .level = SOL_IPV6, .type = IPV6_HOPLIMIT,
	.value = V_INT, .ival = 64, .control = 4, .allowed = true,
};

/* RFC 2292's name for the same message: ip6_datagram_send_ctl() takes both. */
FIXTURE_VARIANT_ADD(cmsg, ipv6_2292hoplimit) {
	.kind = UDP6, .level = SOL_IPV6, .type = IPV6_2292HOPLIMIT,
	.value = V_INT, .ival = 64, .control = 4, .allowed = true,
};

FIXTURE_VARIANT_ADD(cmsg, ipv6_hoplimit_tcp6) {
	.kind = TCP6, .level = SOL_IPV6, .type = IPV6_HOPLIMIT,
	.value = V_INT, .ival = 64, .control = 4, .allowed = true,
};

FIXTURE_VARIANT_ADD(cmsg, ipv6_tclass) {
	.kind = UDP6, .level = SOL_IPV6, .type = IPV6_TCLASS,
	.value = V_INT, .ival = 0x10, .control = 4, .allowed = true,
};

FIXTURE_VARIANT_ADD(cmsg, ipv6_dontfrag) {
	.kind = UDP6, .level = SOL_IPV6, .type = IPV6_DONTFRAG,
	.value = V_INT, .ival = 1, .control = 4, .allowed = true,
};

FIXTURE_VARIANT_ADD(cmsg, udp_segment4) {
	.kind = UDP4, .level = SOL_UDP, .type = UDP_SEGMENT,
	.value = V_U16, .ival = 1000, .control = 4, .allowed = true,
};

FIXTURE_VARIANT_ADD(cmsg, udp_segment6) {
	.kind = UDP6, .level = SOL_UDP, .type = UDP_SEGMENT,
	.value = V_U16, .ival = 1000, .control = 4, .allowed = true,
};

/* No timestamp asked for: valid, and nothing queued on the error queue. */
FIXTURE_VARIANT_ADD(cmsg, so_timestamping) {
	.kind = UDP4, .level = SOL_SOCKET, .type = SO_TIMESTAMPING,
	.value = V_U32, .control = 4, .allowed = true,
};

/* clang-format on */

FIXTURE_SETUP(cmsg)
{
	if (!kept_setup(_metadata, &self->srv, variant->own_netns))
		return;
	self->lo = if_nametoindex("lo");
	ASSERT_LT(0, self->lo);
	self->fd[0] = kept_socket(_metadata, &self->srv, variant->kind);
	self->fd[1] = kept_socket(_metadata, &self->srv, variant->kind);
}

FIXTURE_TEARDOWN_PARENT(cmsg)
{
	servers_stop(&self->srv);
}

static int send_value(FIXTURE_DATA(cmsg) *self,
		      const FIXTURE_VARIANT(cmsg) *const variant, int fd,
		      int (*send_fn)(int fd, struct cmsg_msg *m))
{
	union value_buf v;
	socklen_t len = make_value(variant->value, variant->ival, self->lo, &v);
	struct cmsg_msg m;

	fill_cmsg(&m, variant->level, variant->type, &v, len);
	/* The buffer holds one aligned cmsg; this one says it is longer. */
	if (variant->malformed)
		CMSG_FIRSTHDR(&m.msg)->cmsg_len = m.msg.msg_controllen + 8;
	return send_fn(fd, &m);
}

static void cmsg_test(struct __test_metadata *const _metadata,
		      FIXTURE_DATA(cmsg) *self,
		      const FIXTURE_VARIANT(cmsg) *const variant,
		      int (*send_fn)(int fd, struct cmsg_msg *m))
{
	ASSERT_CONTROL(variant->control,
		       send_value(self, variant, self->fd[0], send_fn));

	CLOSE_GATE();
	if (variant->allowed) {
		ASSERT_EQ(4, send_value(self, variant, self->fd[1], send_fn));
		/* And it went to the peer, which answered. */
		ASSERT_EQ(0, recv_ping(self->fd[1]));
	} else {
		ASSERT_EQ(-EPERM,
			  send_value(self, variant, self->fd[1], send_fn));
	}
	still_works(_metadata, self->fd[1], variant->kind);
}

TEST_F(cmsg, sendmsg)
{
	cmsg_test(_metadata, self, variant, send_msg);
}

TEST_F(cmsg, sendmmsg)
{
	cmsg_test(_metadata, self, variant, send_mmsg);
}

/*
 * AF_UNIX sockets are not the gate's business: socket options and
 * control messages (even ones of other levels, which AF_UNIX ignores, and
 * a malformed buffer) give the same results behind it, on a socket kept
 * from before and on one made after.
 */
static void unix_calls(struct __test_metadata *const _metadata, int fd,
		       int peer)
{
	struct in_pktinfo pi = { .ipi_ifindex = 1 };
	const int one = 1;
	struct cmsg_msg m;
	char buf[8];
	union srh s;

	srh_one(&s);
	ASSERT_EQ(0, RET(setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one,
				    sizeof(one))));
	ASSERT_EQ(0, RET(setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, "lo",
				    3)));
	ASSERT_EQ(4, send_cmsg(fd, SOL_IP, IP_PKTINFO, &pi, sizeof(pi)));
	ASSERT_EQ(4, recv(peer, buf, sizeof(buf), MSG_DONTWAIT));
	ASSERT_EQ(4, send_cmsg(fd, SOL_IPV6, IPV6_RTHDR, &s, sizeof(s)));
	ASSERT_EQ(4, recv(peer, buf, sizeof(buf), MSG_DONTWAIT));
	fill_cmsg(&m, SOL_SOCKET, SCM_RIGHTS, &peer, sizeof(peer));
	CMSG_FIRSTHDR(&m.msg)->cmsg_len = m.msg.msg_controllen + 8;
	ASSERT_EQ(-EINVAL, send_msg(fd, &m));
}

TEST(af_unix_untouched)
{
	int before[2], control[2], after[2];

	become_user(_metadata);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM, 0, control));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM, 0, before));
	unix_calls(_metadata, control[0], control[1]);

	CLOSE_GATE();
	unix_calls(_metadata, before[0], before[1]);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM, 0, after));
	unix_calls(_metadata, after[0], after[1]);
}

/*
 * The same through io_uring, on a ring set up before the gate: inline,
 * from an io-wq worker, from an SQPOLL thread.  Raw system calls, no
 * liburing (the guest has no libraries); the ring helpers are in
 * uring.h, shared with io_uring_test.c.
 */
/*
 * SOCKET_URING_OP_SETSOCKOPT (6.7) is an enum constant, so no #ifdef can
 * tell whether the headers have it, and older headers lack the sqe field
 * names level, optname, optval and optlen.  The uapi layout is fixed:
 * level and optname share addr, optlen shares splice_fd_in, optval shares
 * addr3.  Filled that way, the test builds with any headers.
 */
#define KEPT_SOCKET_URING_OP_SETSOCKOPT 3

static struct io_uring_sqe sqe_setsockopt(int fd, int level, int optname,
					  const void *optval, int optlen)
{
	struct io_uring_sqe sqe = {
		.opcode = IORING_OP_URING_CMD,
		.fd = fd,
	};
	const __u32 lo[2] = { level, optname };

	sqe.cmd_op = KEPT_SOCKET_URING_OP_SETSOCKOPT;
	memcpy(&sqe.addr, lo, sizeof(lo));
	sqe.splice_fd_in = optlen;
	sqe.addr3 = (unsigned long)optval;
	return sqe;
}

static struct io_uring_sqe sqe_sendmsg(int fd, struct cmsg_msg *m)
{
	return (struct io_uring_sqe){
		.opcode = IORING_OP_SENDMSG,
		.fd = fd,
		.addr = (unsigned long)&m->msg,
		.len = 1,
	};
}

static struct io_uring_sqe sqe_sendmsg_zc(int fd, struct cmsg_msg *m)
{
	struct io_uring_sqe sqe = sqe_sendmsg(fd, m);

	sqe.opcode = IORING_OP_SENDMSG_ZC;
	return sqe;
}

FIXTURE(uring)
{
	struct servers srv;
	int fd[2];
	bool mip6;
	struct ring ring;
};

FIXTURE_VARIANT(uring)
{
	unsigned int setup_flags;
	unsigned char sqe_flags;
};

FIXTURE_VARIANT_ADD(uring, inline)
{
	.setup_flags = 0,
};

/* IOSQE_ASYNC: run by an io-wq worker, made by the control's request. */
FIXTURE_VARIANT_ADD(uring, io_wq)
{
	.sqe_flags = IOSQE_ASYNC,
};

/* Unprivileged SQPOLL: since 5.13. */
FIXTURE_VARIANT_ADD(uring, sqpoll)
{
	.setup_flags = IORING_SETUP_SQPOLL,
};

FIXTURE_SETUP(uring)
{
	servers_start(_metadata, &self->srv);
	become_user(_metadata);
	self->fd[0] = kept_socket(_metadata, &self->srv, UDP6);
	self->fd[1] = kept_socket(_metadata, &self->srv, UDP6);
	self->mip6 = have_mip6();
	ASSERT_EQ(0, ring_init(&self->ring, variant->setup_flags));
}

FIXTURE_TEARDOWN_PARENT(uring)
{
	servers_stop(&self->srv);
}

static int uring_run(FIXTURE_DATA(uring) *self,
		     const FIXTURE_VARIANT(uring) *const variant,
		     struct io_uring_sqe sqe)
{
	sqe.flags |= variant->sqe_flags;
	return ring_run(&self->ring, &sqe);
}

TEST_F(uring, sendmsg_rthdr)
{
	struct rt2_hdr r = rt2_one();
	struct cmsg_msg m;

	if (!self->mip6)
		TH_LOG("no CONFIG_IPV6_MIP6: the control can only be EINVAL");
	fill_cmsg(&m, SOL_IPV6, IPV6_RTHDR, &r, sizeof(r));
	ASSERT_CONTROL(self->mip6 ? 4 : -EINVAL,
		       uring_run(self, variant, sqe_sendmsg(self->fd[0], &m)));

	CLOSE_GATE();
	ASSERT_EQ(-EPERM,
		  uring_run(self, variant, sqe_sendmsg(self->fd[1], &m)));
	still_works(_metadata, self->fd[1], UDP6);
}

/* A cmsg whose control succeeds on any kernel. */
TEST_F(uring, sendmsg_pktinfo)
{
	const struct in6_pktinfo pi = { .ipi6_addr = in6addr_loopback };
	struct cmsg_msg m;

	fill_cmsg(&m, SOL_IPV6, IPV6_PKTINFO, &pi, sizeof(pi));
	ASSERT_EQ(4, uring_run(self, variant, sqe_sendmsg(self->fd[0], &m)));

	CLOSE_GATE();
	ASSERT_EQ(-EPERM,
		  uring_run(self, variant, sqe_sendmsg(self->fd[1], &m)));
	still_works(_metadata, self->fd[1], UDP6);
}

/* The zero-copy variant takes control messages the same way. */
TEST_F(uring, sendmsg_zc_pktinfo)
{
	const struct in6_pktinfo pi = { .ipi6_addr = in6addr_loopback };
	struct cmsg_msg m;

	fill_cmsg(&m, SOL_IPV6, IPV6_PKTINFO, &pi, sizeof(pi));
	ASSERT_EQ(4, uring_run(self, variant,
			       sqe_sendmsg_zc(self->fd[0], &m)));

	CLOSE_GATE();
	ASSERT_EQ(-EPERM,
		  uring_run(self, variant, sqe_sendmsg_zc(self->fd[1], &m)));
	still_works(_metadata, self->fd[1], UDP6);
}

TEST_F(uring, sendmsg_hoplimit_allowed)
{
	const int hops = 64;
	struct cmsg_msg m;

	fill_cmsg(&m, SOL_IPV6, IPV6_HOPLIMIT, &hops, sizeof(hops));
	ASSERT_EQ(4, uring_run(self, variant, sqe_sendmsg(self->fd[0], &m)));

	CLOSE_GATE();
	ASSERT_EQ(4, uring_run(self, variant, sqe_sendmsg(self->fd[1], &m)));
	ASSERT_EQ(0, recv_ping(self->fd[1]));
	still_works(_metadata, self->fd[1], UDP6);
}

TEST_F(uring, setsockopt_rthdr)
{
	union srh s;

	srh_one(&s);
	ASSERT_EQ(0, uring_run(self, variant,
			       sqe_setsockopt(self->fd[0], SOL_IPV6, IPV6_RTHDR,
					      &s, sizeof(s))));
	ASSERT_EQ(sizeof(s), rthdr_len(self->fd[0]));

	CLOSE_GATE();
	ASSERT_EQ(-EPERM, uring_run(self, variant,
				    sqe_setsockopt(self->fd[1], SOL_IPV6,
						   IPV6_RTHDR, &s, sizeof(s))));
	ASSERT_EQ(0, rthdr_len(self->fd[1]));
	still_works(_metadata, self->fd[1], UDP6);
}

TEST_F(uring, setsockopt_hops_allowed)
{
	const int hops = 32;

	ASSERT_EQ(0, uring_run(self, variant,
			       sqe_setsockopt(self->fd[0], SOL_IPV6,
					      IPV6_UNICAST_HOPS, &hops,
					      sizeof(hops))));

	CLOSE_GATE();
	ASSERT_EQ(0, uring_run(self, variant,
			       sqe_setsockopt(self->fd[1], SOL_IPV6,
					      IPV6_UNICAST_HOPS, &hops,
					      sizeof(hops))));
	still_works(_metadata, self->fd[1], UDP6);
}

TEST_HARNESS_MAIN
