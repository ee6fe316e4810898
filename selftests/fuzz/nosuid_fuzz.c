// SPDX-License-Identifier: GPL-2.0
/*
 * A bounded, deterministic fuzzer for prctl(PR_SET_NOSUID) and the
 * disablenetwork gate (prctl(PR_SET_NETWORK)).
 *
 * The unit tests check each rule once, in the order their author thought
 * of; this checks the same contract (DESIGN.md, "Interface summary", and
 * the hardening contract) against random sequences.  Each round forks a
 * child that keeps sockets made while it was root, takes a random
 * privilege state, maybe a second thread or a tracee, then makes random
 * prctl, socket and io_uring calls:
 * - a model of what it holds says what each prctl must return, and the
 *   state is read back after every call: it never goes back;
 * - behind the gate, no call that reaches the network may succeed, with
 *   any arguments.  The same kinds of calls are counted when they succeed
 *   before the gate (the controls), so that a run in which nothing could
 *   have succeeded anyway is not taken for a pass.
 * A child's calls depend only on --seed and its round: a failure prints
 * both and the call, and "--seed S --round R" replays it.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <netinet/in.h>
/* After <netinet/in.h>: libc-compat.h then leaves glibc's types alone. */
#include <linux/capability.h>
#include <linux/io_uring.h>
#include <linux/securebits.h>
#include <poll.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"

#ifndef IPV6_FLOWINFO
#define IPV6_FLOWINFO 11
#define IPV6_FLOWLABEL_MGR 32
#endif
/* Levels and names whose headers do not mix with glibc's. */
enum {
	SOL_TCP_ = 6, SOL_UDP_ = 17, SOL_SCTP_ = 132, SOL_PACKET_ = 263,
	UDP_SEGMENT_ = 103, PACKET_ADD_MEMBERSHIP_ = 1
};

enum {
	SCTP_INIT_, SCTP_SNDRCV_, SCTP_SNDINFO_, SCTP_RCVINFO_, SCTP_NXTINFO_,
	SCTP_PRINFO_, SCTP_AUTHINFO_, SCTP_DSTADDRV4_, SCTP_DSTADDRV6_,
	SCTP_BINDX_ADD_ = 100, SCTP_PEELOFF_ = 102, SCTP_CONNECTX_OLD_ = 107,
	SCTP_CONNECTX_ = 110, SCTP_CONNECTX3_ = 111, SCTP_PEELOFF_FLAGS_ = 122
};

#define USER_ID 1000
/*
 * s: a child still running then hangs.  A hang detector, not a time limit:
 * the slowest round measured, 923 of seed 622934693, takes 7 to 10 s on the
 * debug kernel under TCG with the host's two cores shared, and at 10 s the
 * million-call run reported it as a hang.
 */
#define CHILD_ALARM 120
#define CHILD_DEADLINE 15	/* s: then the parent kills its group */
#define RING_WAIT 3		/* s for one io_uring completion */
#define MAX_POOL 32
/* About 20-40 s in the QEMU TCG guest (2 CPUs); the run prints its pace. */
#define DEFAULT_ROUNDS 1000
#define MIN_ROUNDS_FOR_CONTROLS 200

static unsigned long long seed = 12345;
static unsigned int round_no, calls_per_round = 32;
static int report_fd = -1, status_fd = -1;
static char dir[64];		/* 0777, for pathname sockets */
static char call[320];		/* the call being checked, for the report */
static char status[4096];
static bool have_net;
static bool have_tsync;		/* arg3 bit 0 (PR_*_TSYNC) is known */
static bool netns_for_nosuid;	/* kernel.nosuid_netns_clone is 1 */
static const char payload[] = "nosuid-fuzz-payload-0123456789a";

/* xorshift64*: small, and the same sequence with every libc. */
static __u64 rng = 1;

static __u64 next64(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1DULL;
}

static unsigned int rnd(unsigned int n)
{
	return n ? (next64() >> 32) % n : 0;
}

static bool chance(unsigned int pct)
{
	return rnd(100) < pct;
}

#define PICK(a) ((a)[rnd(ARRAY_SIZE(a))])

/* The controls: kinds of calls the gate refuses, counted before it. */
enum ctl { C_SOCKET, C_BIND, C_CONNECT, C_SEND_ADDR, C_CMSG, C_SOCKOPT,
	   C_UNIX_ABSTRACT, C_URING, C_COUNT };
static const char *const ctl_name[C_COUNT] = {
	"socket", "bind/listen", "connect", "send-to-address", "cmsg",
	"setsockopt", "unix-abstract", "io_uring",
};

static struct stats {
	unsigned long calls, gated_calls, ctl[C_COUNT];
	unsigned int nosuid, gated;
} st, total;

/* What the child holds: the model each prctl result is checked against. */
static struct {
	bool mixed, privileged;	/* ids not all equal; a capability or id 0 */
	int threads;		/* other threads alive */
	pid_t tracee;		/* a stopped child, traced or not */
	bool traced, nosuid, gated;
} m;

/* The model, as appended to a call in the report. */
static const char *model(void)
{
	static char buf[128];

	snprintf(buf, sizeof(buf),
		 " [mixed %d priv %d threads %d traced %d nosuid %d gated %d]",
		 m.mixed, m.privileged, m.threads, m.traced, m.nosuid, m.gated);
	return buf;
}

#define CALL(...)                                                      \
	do {                                                           \
		st.calls++;                                            \
		st.gated_calls += m.gated;                             \
		snprintf(call, sizeof(call), __VA_ARGS__);             \
	} while (0)

/* One line, one write(): atomic on a pipe. */
static void send_stats(void)
{
	char line[256];
	int n = snprintf(line, sizeof(line), "S %lu %lu %d %d", st.calls,
			 st.gated_calls, m.nosuid, m.gated);

	for (int i = 0; i < C_COUNT; i++)
		n += snprintf(line + n, sizeof(line) - n, " %lu", st.ctl[i]);
	line[n++] = '\n';
	if (write(report_fd, line, n) != n)
		_exit(3);
}

static __noreturn __printf(1, 2)
void violation(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n = snprintf(line, sizeof(line), "V round %u (seed %llu), call %lu: %s: ",
			 round_no, seed, st.calls, call);

	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	n = n < (int)sizeof(line) - 1 ? n : (int)sizeof(line) - 2;
	line[n++] = '\n';
	send_stats();
	if (write(report_fd, line, n) != n)
		_exit(3);
	_exit(1);
}

/* A result as one number: the value, or -errno. */
static long res(long r)
{
	return r < 0 ? -errno : r;
}

static const char *ename(long r)
{
	static char buf[32];
	const char *name = r < 0 ? strerrorname_np(-r) : NULL;

	snprintf(buf, sizeof(buf), "%ld", r);
	return name ? name : buf;
}

/* The number after "Key:" in /proc/self/status, -1 when absent. */
static long long status_num(const char *key, int base)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), "\n%s:", key);
	p = strstr(status, pat);
	return p ? strtoll(p + strlen(pat), NULL, base) : -1;
}

static void read_status(void)
{
	ssize_t n = pread(status_fd, status, sizeof(status) - 1, 0);

	status[n > 0 ? n : 0] = '\0';
}

/* Contract 3: the state never goes back, nor moves without a success. */
static void check_state(void)
{
	long r = res(prctl(PR_GET_NOSUID, 0, 0, 0, 0));

	if (r != m.nosuid)
		violation("then PR_GET_NOSUID gives %s, model %d", ename(r), m.nosuid);
	if (m.nosuid && prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		violation("then PR_GET_NO_NEW_PRIVS is not 1 under nosuid");
	if (have_net) {
		r = res(prctl(PR_GET_NETWORK, 0, 0, 0, 0));
		if (r != m.gated)
			violation("then PR_GET_NETWORK gives %s, model %d",
				  ename(r), m.gated);
	}
	read_status();
	if (status_num("NoSUID", 10) != m.nosuid ||
	    (have_net && status_num("NoNetwork", 10) != m.gated))
		violation("then /proc/self/status has NoSUID: %lld NoNetwork: %lld",
			  status_num("NoSUID", 10), status_num("NoNetwork", 10));
}

/* Ids and capabilities as the kernel shows them, once the state is set. */
static void read_facts(void)
{
	unsigned int u[4] = {}, g[4] = {};
	const char *p;
	char *end;
	long gid;
	bool root;

	read_status();
	p = strstr(status, "\nUid:");
	if (p)
		sscanf(p, "\nUid:%u%u%u%u", &u[0], &u[1], &u[2], &u[3]);
	p = strstr(status, "\nGid:");
	if (p)
		sscanf(p, "\nGid:%u%u%u%u", &g[0], &g[1], &g[2], &g[3]);
	m.mixed = u[0] != u[1] || u[0] != u[2] || u[0] != u[3] ||
		  g[0] != g[1] || g[0] != g[2] || g[0] != g[3];
	root = !u[0] || !g[0];
	p = strstr(status, "\nGroups:");
	/* strtol() stops at the next line, which starts with a name. */
	for (p = p ? p + 8 : ""; gid = strtol(p, &end, 10), end != p; p = end)
		root |= !gid;
	m.privileged = root || status_num("CapPrm", 16) ||
		       status_num("CapEff", 16) || status_num("CapAmb", 16);
}

/* Results as a mask: bit 0 for success, bit e for errno e (all < 32). */
#define R_OK_ 1u
#define R_(e) (1u << (e))

static bool busy(void)
{
	return m.threads > 0 || m.traced;
}

/*
 * PR_SET_NOSUID(1, 0, 0, 0), contract 2: when several apply, mixed ids
 * (EPERM) win over privilege (EACCES), which wins over EBUSY.
 */
static unsigned int expect_nosuid(bool busy)
{
	if (m.nosuid)
		return R_OK_;
	if (m.mixed || m.privileged)
		return m.mixed ? R_(EPERM) : R_(EACCES);
	return busy ? R_(EBUSY) : R_OK_;
}

/*
 * PR_SET_NETWORK with known flags.  Which of EPERM and EBUSY wins when
 * both apply, or whether a change to the same flags may give EBUSY, is
 * not said: either is taken.
 */
static unsigned int expect_network(unsigned long flags, bool busy)
{
	unsigned int ebusy = busy ? R_(EBUSY) : 0;

	if (!have_net)
		return R_(EINVAL);
	if (!m.nosuid || (m.gated & ~flags))
		return R_(EPERM) | ebusy;
	if (flags == m.gated)
		return R_OK_ | ebusy;
	return (busy ? ebusy : R_OK_) | R_(ENOMEM);
}

static void check_result(long r, unsigned int want)
{
	char buf[128] = "";
	int n = 0;

	if ((!r && (want & R_OK_)) || (r < 0 && r > -32 && (want & R_(-r))))
		return;
	for (int e = 0; e < 32; e++)
		if (want & R_(e))
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s",
				      n ? " or " : "", e ? ename(-e) : "0");
	violation("returned %s, expected %s", ename(r), buf);
}

/*
 * One PR_SET_* call checked against the model, which it then updates.
 * arg3 bit 0 is PR_NOSUID_TSYNC and PR_NETWORK_TSYNC (when the kernel has
 * them; otherwise it is EINVAL, as every other bit is): then the other
 * threads, which hold the same credentials as this one (set_privilege()
 * runs before any is made), take the change too and are no reason for
 * EBUSY; a tracee still is.
 */
static void set_prctl(int opt, unsigned long a2, unsigned long a3,
		      unsigned long a4, unsigned long a5)
{
	bool nosuid = opt == PR_SET_NOSUID;
	bool valid = (nosuid ? a2 == 1 : !(a2 & ~1UL)) &&
		     !(a3 & ~(have_tsync ? 1UL : 0UL)) && !a4 && !a5;
	bool busy_now = (a3 & 1) ? m.traced : busy();
	long r;

	CALL("prctl(%s, %#lx, %#lx, %#lx, %#lx)%s",
	     nosuid ? "PR_SET_NOSUID" : "PR_SET_NETWORK", a2, a3, a4, a5,
	     model());
	r = res(prctl(opt, a2, a3, a4, a5));
	check_result(r, !valid ? R_(EINVAL) : nosuid ? expect_nosuid(busy_now) :
		     expect_network(a2, busy_now));
	if (!r && nosuid)
		m.nosuid = true;
	else if (!r)
		m.gated = a2 & PR_NETWORK_OFF;
}

static unsigned long odd_arg(void)
{
	static const unsigned long odd[] = { 1, 2, 3, -1UL, 1UL << 32 | 1 };

	return chance(50) ? PICK(odd) : next64();
}

static unsigned long mostly_0(void)
{
	return chance(92) ? 0 : odd_arg();
}

/* PR_SET_NOSUID, PR_SET_NETWORK, or one of the PR_GET_* (0, 1, 2). */
static void op_prctl(int which)
{
	unsigned long a2 = mostly_0(), a3 = mostly_0(), a4 = mostly_0();
	unsigned long tsync = chance(30) ? 1 : a2;
	bool nosuid = chance(50);
	long r;

	/* arg3 is the TSYNC flag word: 1 in 30 % of the calls. */
	if (which == 0)
		return set_prctl(PR_SET_NOSUID, chance(70) ? 1 : odd_arg(),
				 tsync, a3, a4);
	if (which == 1)
		return set_prctl(PR_SET_NETWORK, chance(60) ? PR_NETWORK_OFF :
				 chance(50) ? 0 : odd_arg(), tsync, a3, a4);
	CALL("prctl(%s, %#lx, %#lx, %#lx, 0)%s",
	     nosuid ? "PR_GET_NOSUID" : "PR_GET_NETWORK", a2, a3, a4, model());
	r = res(prctl(nosuid ? PR_GET_NOSUID : PR_GET_NETWORK, a2, a3, a4, 0));
	if (a2 || a3 || a4 || (!nosuid && !have_net))
		check_result(r, R_(EINVAL));
	else if (r != (nosuid ? m.nosuid : m.gated))
		violation("returned %s, model %d", ename(r), nosuid ? m.nosuid : m.gated);
}

/* Sockets: those kept from before any restriction, and new ones. */
static int pool[MAX_POOL] = { -1 }, npool;
static int pristine[2] = { -1, -1 };	/* never fuzzed: the echo check */
static unsigned short ports[5];		/* 0, tcp4, tcp6, udp4, udp6 */

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

static int pool_add(int fd)
{
	if (fd >= 0 && npool < MAX_POOL) {
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		pool[npool++] = fd;
	} else if (fd >= 0) {
		close(fd);
	}
	return fd;
}

/* A socket from the pool, and its family now (IPV6_ADDRFORM changes it). */
static int pick_sock(int *family)
{
	int fd = pool[rnd(npool)];
	socklen_t len = sizeof(*family);

	*family = -1;
	getsockopt(fd, SOL_SOCKET, SO_DOMAIN, family, &len);
	return fd;
}

static struct addr loopback(int family, unsigned short port)
{
	struct addr a = { .len = family == AF_INET6 ? sizeof(a.in6) : sizeof(a.in) };

	if (family == AF_INET6)
		a.in6 = (struct sockaddr_in6){ AF_INET6, htons(port), 0,
					       IN6ADDR_LOOPBACK_INIT };
	else
		a.in = (struct sockaddr_in){ AF_INET, htons(port),
					     { htonl(INADDR_LOOPBACK) } };
	return a;
}

static unsigned short port_of(int fd)
{
	struct addr a = { .len = sizeof(a.ss) };

	if (getsockname(fd, &a.sa, &a.len))
		return 0;
	return ntohs(a.sa.sa_family == AF_INET6 ? a.in6.sin6_port : a.in.sin_port);
}

/* This round's pathname (k >= 0) or abstract (k < 0) names. */
static struct addr unix_name(int k)
{
	struct addr a = { .un.sun_family = AF_UNIX };

	if (k >= 0)
		snprintf(a.un.sun_path, sizeof(a.un.sun_path), "%s/%d.%d",
			 dir, getpid(), k);
	else
		snprintf(a.un.sun_path + 1, sizeof(a.un.sun_path) - 1,
			 "nosuid_fuzz.%d.%d", getpid(), -k);
	a.len = offsetof(struct sockaddr_un, sun_path) + 1 +
		strlen(a.un.sun_path + 1);
	return a;
}

/*
 * As root, before any restriction: TCP over 127.0.0.1 and ::1 (listener
 * and both ends), UDP pairs connected to each other, AF_UNIX pairs, a
 * pathname listener (name 0) and an abstract name (-1), a packet socket
 * (root only) and a one-to-many SCTP socket when the kernel has SCTP.
 */
static void setup_sockets(void)
{
	for (int f = 0; f < 2; f++) {
		int fam = f ? AF_INET6 : AF_INET, u[2];
		int l = pool_add(socket(fam, SOCK_STREAM, 0));
		int c = socket(fam, SOCK_STREAM, 0);
		struct addr a = loopback(fam, 0);

		if (!bind(l, &a.sa, a.len) && !listen(l, 64)) {
			a = loopback(fam, ports[1 + f] = port_of(l));
			if (!connect(c, &a.sa, a.len))
				pool_add(accept(l, NULL, NULL));
		}
		pool_add(c);
		a = loopback(fam, 0);
		for (int i = 0; i < 2; i++) {
			u[i] = socket(fam, SOCK_DGRAM, 0);
			bind(u[i], &a.sa, a.len);
		}
		for (int i = 0; i < 2; i++) {
			a = loopback(fam, port_of(u[!i]));
			connect(u[i], &a.sa, a.len);
		}
		ports[3 + f] = port_of(u[0]);
		/* The IPv4 pair stays out of the pool: the final echo check. */
		for (int i = 0; i < 2; i++)
			if (f)
				pool_add(u[i]);
			else
				pristine[i] = u[i];
		if (!socketpair(AF_UNIX, f ? SOCK_DGRAM : SOCK_STREAM, 0, u)) {
			pool_add(u[0]);
			pool_add(u[1]);
		}
	}
	for (int k = 0; k >= -1; k--) {
		struct addr a = unix_name(k);
		int s = pool_add(socket(AF_UNIX, k ? SOCK_DGRAM : SOCK_STREAM, 0));

		if (!bind(s, &a.sa, a.len) && !k) {
			chmod(a.un.sun_path, 0777);
			listen(s, 64);
		}
	}
	pool_add(socket(AF_PACKET, SOCK_DGRAM, 0));
	pool_add(socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP));
}

/* Loopback, this round's AF_UNIX names, autobind, AF_UNSPEC, or junk. */
static struct addr gen_addr(void)
{
	unsigned short port = chance(80) ? PICK(ports) : rnd(65536);
	struct addr a = {};

	switch (rnd(9)) {
	case 0:
	case 1:
		a = loopback(AF_INET, port);
		if (chance(30))
			a.in.sin_addr.s_addr = chance(50) ? 0 : htonl(0x7f000002);
		break;
	case 2:
	case 3:
		a = loopback(AF_INET6, port);
		if (chance(30))
			inet_pton(AF_INET6, chance(50) ? "::" : "::ffff:127.0.0.1",
				  &a.in6.sin6_addr);
		break;
	case 4:
		a = unix_name(rnd(3));
		break;
	case 5:
		a = unix_name(-1 - (int)rnd(2));
		break;
	case 6:
		a.sa.sa_family = AF_UNIX;	/* autobind */
		a.len = sizeof(sa_family_t);
		break;
	case 7:
		a = loopback(AF_INET, port);
		a.sa.sa_family = AF_UNSPEC;
		a.len = chance(50) ? sizeof(sa_family_t) : sizeof(a.in);
		break;
	default:
		for (size_t i = 0; i < sizeof(a.ss); i += 8)
			*(uint64_t *)((char *)&a.ss + i) = next64();
		a.sa.sa_family = rnd(46);
		a.len = rnd(sizeof(a.ss) + 1);
	}
	if (chance(8))
		a.len = rnd(sizeof(a.ss) + 1);
	return a;
}

static const char *addr_str(const struct addr *a)
{
	static char buf[160];
	char ip[INET6_ADDRSTRLEN] = "";
	int fam = a->len >= sizeof(sa_family_t) ? a->sa.sa_family : -1;
	bool abstract = !a->un.sun_path[0];

	if (fam == AF_UNIX) {
		snprintf(buf, sizeof(buf), "{AF_UNIX %s%.100s} len %u",
			 abstract ? "@" : "", a->un.sun_path + abstract, a->len);
		return buf;
	}
	inet_ntop(fam == AF_INET6 ? AF_INET6 : AF_INET, fam == AF_INET6 ?
		  (void *)&a->in6.sin6_addr : (void *)&a->in.sin_addr, ip, sizeof(ip));
	snprintf(buf, sizeof(buf), "{family %d %s port %u} len %u", fam, ip,
		 ntohs(a->in.sin_port), a->len);
	return buf;
}

/*
 * Must the gate refuse this address on a socket of this family?  AF_UNIX:
 * abstract names and autobind only.  Others: all, but AF_UNSPEC given to
 * connect() on an inet socket, which only dissolves an association.
 */
static bool gate_refuses(int family, const struct addr *a, bool connect)
{
	bool named = a->len >= sizeof(sa_family_t);

	if (family == AF_UNIX)
		return named && a->sa.sa_family == AF_UNIX &&
		       (a->len == sizeof(sa_family_t) || !a->un.sun_path[0]);
	return !(connect && named && a->sa.sa_family == AF_UNSPEC &&
		 (family == AF_INET || family == AF_INET6));
}

/*
 * Contract 4: a call the gate must refuse never succeeds behind it.  The
 * same kind of call succeeding without the gate is its control.
 */
static void outcome(bool succeeded, bool refused, enum ctl c)
{
	if (!refused || !succeeded)
		return;
	if (m.gated)
		violation("succeeded behind the gate");
	st.ctl[c]++;
}

/* io_uring without liburing: the guest has no libraries. */
static struct {
	int fd, made;
	bool sqpoll;
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	__u64 seq;
} ring = { .fd = -1 };

static void op_ring_setup(int unused)
{
	struct io_uring_params p = { .sq_thread_idle = 1000 };
	size_t sq_size, cq_size;
	void *sq, *cq;

	if ((ring.fd >= 0 && chance(80)) || ring.made++ >= 3)
		return;
	close(ring.fd);
	/* SQPOLL submits with the credentials the ring was made with. */
	p.flags = chance(30) ? IORING_SETUP_SQPOLL : 0;
	CALL("io_uring_setup(4, %#x)%s", p.flags, model());
	ring.fd = syscall(__NR_io_uring_setup, 4, &p);
	if (ring.fd < 0)
		return;
	ring.sqpoll = p.flags & IORING_SETUP_SQPOLL;
	sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		sq_size = sq_size > cq_size ? sq_size : cq_size;
		cq_size = sq_size;
	}
	sq = mmap(NULL, sq_size, PROT_READ | PROT_WRITE, MAP_SHARED, ring.fd,
		  IORING_OFF_SQ_RING);
	cq = (p.features & IORING_FEAT_SINGLE_MMAP) ? sq :
	     mmap(NULL, cq_size, PROT_READ | PROT_WRITE, MAP_SHARED, ring.fd,
		  IORING_OFF_CQ_RING);
	ring.sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
			 PROT_READ | PROT_WRITE, MAP_SHARED, ring.fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || ring.sqes == MAP_FAILED) {
		close(ring.fd);
		ring.fd = -1;
		return;
	}
	ring.sq_tail = sq + p.sq_off.tail;
	ring.sq_mask = sq + p.sq_off.ring_mask;
	ring.sq_array = sq + p.sq_off.array;
	ring.cq_head = cq + p.cq_off.head;
	ring.cq_tail = cq + p.cq_off.tail;
	ring.cq_mask = cq + p.cq_off.ring_mask;
	ring.cqes = cq + p.cq_off.cqes;
}

/*
 * Run one request, inline or (IOSQE_ASYNC) on an io-wq worker, and return
 * its result.  The gate refuses before anything can wait: a request it
 * must refuse that is still pending after RING_WAIT got past it.  Any
 * other pending request retires the ring.
 */
static long ring_run(struct io_uring_sqe *sqe, bool must_fail)
{
	struct __kernel_timespec ts = { .tv_sec = RING_WAIT };
	struct io_uring_getevents_arg arg = { .ts = (uintptr_t)&ts };
	unsigned int flags = IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG |
			     (ring.sqpoll ? IORING_ENTER_SQ_WAKEUP : 0);
	unsigned int tail = *ring.sq_tail, idx = tail & *ring.sq_mask, head;

	sqe->flags |= chance(30) ? IOSQE_ASYNC : 0;
	sqe->user_data = ++ring.seq;
	ring.sqes[idx] = *sqe;
	ring.sq_array[idx] = idx;
	__atomic_store_n(ring.sq_tail, tail + 1, __ATOMIC_RELEASE);
	for (unsigned int submit = 1;; submit = 0) {
		head = *ring.cq_head;
		while (head != __atomic_load_n(ring.cq_tail, __ATOMIC_ACQUIRE)) {
			struct io_uring_cqe *cqe = &ring.cqes[head & *ring.cq_mask];
			bool mine = cqe->user_data == ring.seq;
			long r = cqe->res;

			__atomic_store_n(ring.cq_head, ++head, __ATOMIC_RELEASE);
			if (mine)
				return r;
		}
		if (syscall(__NR_io_uring_enter, ring.fd, submit, 1, flags, &arg,
			    sizeof(arg)) < 0 && errno != EINTR) {
			if (errno == ETIME && must_fail && m.gated)
				violation("pending after %d s: past the gate", RING_WAIT);
			close(ring.fd);
			ring.fd = -1;
			return -ETIME;
		}
	}
}

/* socket() (0), socketpair() (1) or io_uring's socket (2). */
static void op_socket(int how)
{
	static const int families[] = { AF_UNIX, AF_INET, AF_INET6, AF_PACKET,
					AF_NETLINK, AF_UNSPEC };
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_RAW,
				     SOCK_SEQPACKET, SOCK_RDM, SOCK_PACKET, 11 };
	static const int protos[] = { 0, 0, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_SCTP,
				      IPPROTO_ICMP, IPPROTO_ICMPV6, IPPROTO_RAW,
				      262 /* MPTCP */ };
	static const char *const name[] = { "socket", "socketpair",
					    "io_uring socket" };
	int fam = chance(50) ? PICK(families) : rnd(46), sv[2];
	int type = PICK(types) | SOCK_NONBLOCK | (chance(50) ? SOCK_CLOEXEC : 0);
	int proto = chance(90) ? PICK(protos) : rnd(300);
	long r;

	if (how == 2 && ring.fd < 0)
		return;
	CALL("%s(%d, %#x, %d)", name[how], fam, type, proto);
	if (how == 2) {
		struct io_uring_sqe sqe = { .opcode = IORING_OP_SOCKET, .fd = fam,
					    .off = type, .len = proto };

		r = ring_run(&sqe, fam != AF_UNIX);
	} else if (how == 1) {
		r = res(socketpair(fam, type, proto, sv));
		if (!r && pool_add(sv[1]) >= 0)
			r = sv[0];
	} else {
		r = res(socket(fam, type, proto));
	}
	outcome(r >= 0, fam != AF_UNIX, how == 2 ? C_URING : C_SOCKET);
	pool_add(r);
}

/* bind() (0), connect() (1), listen() (2), io_uring's connect (3). */
static void op_endpoint(int how)
{
	static const char *const name[] = { "bind", "connect", "listen",
					    "io_uring connect" };
	struct addr a = gen_addr();
	int fam, fd = pick_sock(&fam);
	bool refused;
	long r;

	if (how == 3 && ring.fd < 0)
		return;
	a.len = how == 2 ? sizeof(a.ss) : a.len;
	if (how == 2 && getsockname(fd, &a.sa, &a.len))
		a.len = 0;
	/* listen(): on an abstract name, or not AF_UNIX, a new endpoint. */
	refused = how != 2 ? gate_refuses(fam, &a, how & 1) :
		  fam != AF_UNIX || (a.len > sizeof(sa_family_t) && !a.un.sun_path[0]);
	CALL("%s(fd %d family %d, %s)", name[how], fd, fam, addr_str(&a));
	if (how == 3) {
		struct io_uring_sqe sqe = { .opcode = IORING_OP_CONNECT, .fd = fd,
					    .addr = (uintptr_t)&a.sa, .off = a.len };

		r = ring_run(&sqe, refused);
	} else {
		r = res(how == 0 ? bind(fd, &a.sa, a.len) : how == 1 ?
			connect(fd, &a.sa, a.len) : listen(fd, rnd(8)));
	}
	/* A non-blocking connect in progress got past the gate too. */
	outcome(!r || r == -EINPROGRESS, refused, fam == AF_UNIX ? C_UNIX_ABSTRACT :
		how == 3 ? C_URING : how == 1 ? C_CONNECT : C_BIND);
}

/* Control messages a kept socket may send behind the gate (contract 1). */
static bool cmsg_allowed(int level, int type)
{
	switch (level) {
	case SOL_SOCKET:
		return true;
	case SOL_IP:
		return type == IP_TTL || type == IP_TOS;
	case SOL_IPV6:
		return type == IPV6_HOPLIMIT || type == IPV6_2292HOPLIMIT ||
		       type == IPV6_TCLASS || type == IPV6_DONTFRAG;
	case SOL_UDP_:
		return type == UDP_SEGMENT_;
	case SOL_SCTP_:
		return type == SCTP_SNDRCV_ || type == SCTP_SNDINFO_ ||
		       type == SCTP_PRINFO_ || type == SCTP_AUTHINFO_;
	}
	return false;
}

/*
 * Walk the buffer as the kernel's for_each_cmsghdr() and CMSG_OK() do: a
 * header that does not fit, or a message not allowed, is refused; a buffer
 * too short for any header carries no message.
 */
static bool cmsgs_allowed(const char *buf, size_t len)
{
	for (size_t off = 0; off + sizeof(struct cmsghdr) <= len;) {
		const struct cmsghdr *c = (const void *)(buf + off);

		if (c->cmsg_len < sizeof(*c) || c->cmsg_len > len - off ||
		    !cmsg_allowed(c->cmsg_level, c->cmsg_type))
			return false;
		off += CMSG_ALIGN(c->cmsg_len);
	}
	return true;
}

/* Options that move a kept socket's endpoints (contract 1): all refused. */
static const int moves[][2] = {
	{ SOL_SOCKET, SO_BINDTODEVICE }, { SOL_SOCKET, SO_BINDTOIFINDEX },
	{ SOL_IP, IP_OPTIONS }, { SOL_IP, IP_UNICAST_IF }, { SOL_IP, IP_MULTICAST_IF },
	{ SOL_IP, IP_ADD_MEMBERSHIP }, { SOL_IP, IP_ADD_SOURCE_MEMBERSHIP },
	{ SOL_IP, IP_UNBLOCK_SOURCE }, { SOL_IP, IP_MSFILTER },
	{ SOL_IP, MCAST_JOIN_GROUP }, { SOL_IP, MCAST_JOIN_SOURCE_GROUP },
	{ SOL_IP, MCAST_UNBLOCK_SOURCE }, { SOL_IP, MCAST_MSFILTER },
	{ SOL_IP, IP_IPSEC_POLICY }, { SOL_IP, IP_XFRM_POLICY },
	{ SOL_IP, IP_HDRINCL }, { SOL_IPV6, IPV6_HDRINCL },
	/* The IPV6_2292{RTHDR,HOPOPTS,DSTOPTS} options only ask to receive. */
	{ SOL_IPV6, IPV6_RTHDR }, { SOL_IPV6, IPV6_HOPOPTS },
	{ SOL_IPV6, IPV6_DSTOPTS },
	{ SOL_IPV6, IPV6_RTHDRDSTOPTS }, { SOL_IPV6, IPV6_2292PKTOPTIONS },
	{ SOL_IPV6, IPV6_PKTINFO }, { SOL_IPV6, IPV6_FLOWLABEL_MGR },
	{ SOL_IPV6, IPV6_UNICAST_IF }, { SOL_IPV6, IPV6_MULTICAST_IF },
	{ SOL_IPV6, IPV6_ADD_MEMBERSHIP }, { SOL_IPV6, IPV6_JOIN_ANYCAST },
	{ SOL_IPV6, MCAST_JOIN_GROUP }, { SOL_IPV6, MCAST_JOIN_SOURCE_GROUP },
	{ SOL_IPV6, MCAST_UNBLOCK_SOURCE }, { SOL_IPV6, MCAST_MSFILTER },
	{ SOL_IPV6, IPV6_IPSEC_POLICY }, { SOL_IPV6, IPV6_XFRM_POLICY },
	{ SOL_PACKET_, PACKET_ADD_MEMBERSHIP_ },
	/* SCTP binds, connects and peels off (a new socket) this way. */
	{ SOL_SCTP_, SCTP_BINDX_ADD_ }, { SOL_SCTP_, SCTP_PEELOFF_ },
	{ SOL_SCTP_, SCTP_CONNECTX_OLD_ }, { SOL_SCTP_, SCTP_CONNECTX_ },
	{ SOL_SCTP_, SCTP_CONNECTX3_ }, { SOL_SCTP_, SCTP_PEELOFF_FLAGS_ },
	{ SOL_SCTP_, 132 /* SCTP_REMOTE_UDP_ENCAPS_PORT */ },
};

/* Control messages: the refused ones named by contract 1, some allowed. */
static const int cmsgs[][2] = {
	{ SOL_IP, IP_PKTINFO }, { SOL_IP, IP_RETOPTS }, { SOL_IPV6, IPV6_PKTINFO },
	{ SOL_IPV6, IPV6_2292PKTINFO }, { SOL_IPV6, IPV6_RTHDR },
	{ SOL_IPV6, IPV6_2292RTHDR }, { SOL_IPV6, IPV6_FLOWINFO },
	{ SOL_IPV6, IPV6_HOPOPTS }, { SOL_IPV6, IPV6_DSTOPTS },
	{ SOL_SCTP_, SCTP_DSTADDRV4_ }, { SOL_SCTP_, SCTP_DSTADDRV6_ },
	{ SOL_SCTP_, SCTP_INIT_ }, { SOL_SOCKET, SO_MARK }, { SOL_SOCKET, SCM_RIGHTS },
	{ SOL_IP, IP_TTL }, { SOL_IP, IP_TOS }, { SOL_IPV6, IPV6_HOPLIMIT },
	{ SOL_IPV6, IPV6_2292HOPLIMIT }, { SOL_IPV6, IPV6_TCLASS },
	{ SOL_IPV6, IPV6_DONTFRAG },
	{ SOL_UDP_, UDP_SEGMENT_ }, { SOL_SCTP_, SCTP_SNDINFO_ },
	{ SOL_SCTP_, SCTP_PRINFO_ },
};

static const int levels[] = { SOL_SOCKET, SOL_IP, SOL_IPV6, SOL_TCP_,
			      SOL_UDP_, SOL_SCTP_, SOL_PACKET_ };

/*
 * Well-formed values, so that the refusals are checked on calls that do
 * succeed without the gate: a routing header (SRv6, one segment: needs no
 * capability), multicast groups on lo, a loose source route, ...
 */
static const struct { int level, opt; unsigned char len, v[24]; } values[] = {
	{ SOL_SOCKET, SO_BINDTODEVICE, 3, "lo" },
	{ SOL_SOCKET, SO_BINDTOIFINDEX, 4, { 1 } },
	{ SOL_IP, IP_UNICAST_IF, 4, { 0, 0, 0, 1 } },	/* network order */
	{ SOL_IPV6, IPV6_UNICAST_IF, 4, { 0, 0, 0, 1 } },
	{ SOL_IPV6, IPV6_MULTICAST_IF, 4, { 1 } },
	{ SOL_IP, IP_OPTIONS, 8, { 0x83, 7, 4, 127, 0, 0, 1, 1 } },
	{ SOL_IP, IP_MULTICAST_IF, 12, { 224, 0, 0, 251, 127, 0, 0, 1, 1 } },
	{ SOL_IP, IP_ADD_MEMBERSHIP, 12, { 224, 0, 0, 251, 127, 0, 0, 1, 1 } },
	{ SOL_IPV6, IPV6_RTHDR, 24, { 0, 2, 4, 0, 0, 0, 0, 0, [23] = 1 } },
	{ SOL_IPV6, IPV6_HOPOPTS, 8, { 0, 0, 1, 4 } },
	{ SOL_IPV6, IPV6_DSTOPTS, 8, { 0, 0, 1, 4 } },
	{ SOL_IPV6, IPV6_RTHDRDSTOPTS, 8, { 0, 0, 1, 4 } },
	{ SOL_IPV6, IPV6_PKTINFO, 20, { [15] = 1, [16] = 1 } },
	{ SOL_IPV6, IPV6_ADD_MEMBERSHIP, 20, { 0xff, 2, [15] = 0xfb, [16] = 1 } },
	{ SOL_PACKET_, PACKET_ADD_MEMBERSHIP_, 16, { 1, 0, 0, 0, 2 } },
	{ SOL_SCTP_, SCTP_BINDX_ADD_, 16, { AF_INET, 0, 0, 0, 127, 0, 0, 1 } },
	{ SOL_SCTP_, SCTP_CONNECTX_, 16, { AF_INET, 0, 0, 9, 127, 0, 0, 1 } },
	{ SOL_IP, IP_TTL, 4, { 64 } },
	{ SOL_IPV6, IPV6_HOPLIMIT, 4, { 64 } },
};

static socklen_t gen_value(int level, int opt, unsigned char *buf)
{
	socklen_t n = chance(40) ? 4 : rnd(65);

	memset(buf, 0, 64);
	for (size_t i = 0; i < ARRAY_SIZE(values); i++)
		if (values[i].level == level && values[i].opt == opt && chance(60)) {
			memcpy(buf, values[i].v, values[i].len);
			return values[i].len;
		}
	/* Otherwise a small int, or random bytes. */
	for (socklen_t i = 0; i < n; i++)
		buf[i] = n == 4 && i ? 0 : next64();
	return n;
}

static bool moves_endpoint(int level, int opt)
{
	for (size_t i = 0; i < ARRAY_SIZE(moves); i++)
		if (moves[i][0] == level && moves[i][1] == opt)
			return true;
	return false;
}

/* setsockopt() (0) or io_uring's SOCKET_URING_OP_SETSOCKOPT (1). */
static void op_setsockopt(int uring)
{
	int fam, fd = pick_sock(&fam), i = rnd(ARRAY_SIZE(moves));
	int level = chance(90) ? PICK(levels) : rnd(300), opt = rnd(81);
	unsigned char buf[64];
	socklen_t len;
	bool refused;
	long r;

	if (uring && ring.fd < 0)
		return;
	if (chance(35)) {	/* aim at the refused ones */
		level = moves[i][0];
		opt = moves[i][1];
	}
	len = gen_value(level, opt, buf);
	refused = fam != AF_UNIX && moves_endpoint(level, opt);
	CALL("%ssetsockopt(fd %d family %d, %d, %d, %u bytes %02x%02x%02x%02x..)",
	     uring ? "io_uring " : "", fd, fam, level, opt, len, buf[0], buf[1],
	     buf[2], buf[3]);
	if (uring) {
		struct io_uring_sqe sqe = {
			.opcode = IORING_OP_URING_CMD, .fd = fd,
			.cmd_op = SOCKET_URING_OP_SETSOCKOPT, .level = level,
			.optname = opt, .optval = (uintptr_t)buf, .optlen = len,
		};

		r = ring_run(&sqe, refused);
	} else {
		r = res(setsockopt(fd, level, opt, buf, len));
	}
	outcome(!r, refused, uring ? C_URING : C_SOCKOPT);
}

/* One to three control messages, sometimes malformed or cut short. */
static size_t gen_cmsgs(char *buf, size_t size)
{
	size_t off = 0;

	memset(buf, 0, size);
	for (int n = 1 + rnd(3); n; n--) {
		struct cmsghdr *c = (void *)(buf + off);
		int i = rnd(ARRAY_SIZE(cmsgs));
		int level = chance(80) ? cmsgs[i][0] : PICK(levels);
		int type = chance(80) ? cmsgs[i][1] : rnd(81);
		unsigned char v[64];
		socklen_t len = gen_value(level, type, v);

		if (off + CMSG_SPACE(len) > size)
			break;
		*c = (struct cmsghdr){ CMSG_LEN(len), level, type };
		memcpy(CMSG_DATA(c), v, len);
		off += CMSG_SPACE(len);
	}
	if (off && chance(8))
		((struct cmsghdr *)buf)->cmsg_len = rnd(off + 16);
	return chance(8) ? rnd(off + 1) : off;
}

/* sendto() (0), sendmsg() (1) or io_uring's sendmsg (2). */
static void op_send(int how)
{
	static const char *const name[] = { "sendto", "sendmsg",
					    "io_uring sendmsg" };
	union { struct cmsghdr hdr; char buf[256]; } ctl = {};
	struct iovec iov = { (void *)payload, rnd(sizeof(payload)) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int flags = MSG_DONTWAIT | MSG_NOSIGNAL | (chance(10) ? MSG_FASTOPEN : 0);
	struct addr a = gen_addr();
	int fam, fd = pick_sock(&fam);
	bool named, refused;
	long r;

	if (how == 2 && ring.fd < 0)
		return;
	if (chance(how ? 40 : 70)) {
		msg.msg_name = &a.sa;
		msg.msg_namelen = a.len;
	}
	if (how && chance(60)) {
		msg.msg_controllen = gen_cmsgs(ctl.buf, sizeof(ctl.buf));
		msg.msg_control = msg.msg_controllen ? ctl.buf : NULL;
	}
	/* sendmsg() takes a name of length 0 for none, sendto() does not. */
	named = msg.msg_name && (msg.msg_namelen || !how);
	refused = (named && gate_refuses(fam, &a, false)) ||
		  (fam != AF_UNIX && !cmsgs_allowed(ctl.buf, msg.msg_controllen));
	CALL("%s(fd %d family %d, %zu bytes, %#x, %s, %zu bytes of cmsg %d/%d..)",
	     name[how], fd, fam, iov.iov_len, flags,
	     named ? addr_str(&a) : "NULL", msg.msg_controllen,
	     ctl.hdr.cmsg_level, ctl.hdr.cmsg_type);
	if (how == 2) {
		struct io_uring_sqe sqe = { .opcode = IORING_OP_SENDMSG, .fd = fd,
					    .addr = (uintptr_t)&msg, .len = 1,
					    .msg_flags = MSG_NOSIGNAL };

		r = ring_run(&sqe, refused);
	} else if (how == 1) {
		r = res(sendmsg(fd, &msg, flags));
	} else {
		r = res(sendto(fd, payload, iov.iov_len, flags, msg.msg_name,
			       msg.msg_namelen));
	}
	outcome(r >= 0, refused, fam == AF_UNIX ? C_UNIX_ABSTRACT : how == 2 ?
		C_URING : named ? C_SEND_ADDR : C_CMSG);
}

/* Threads: one that stays (EBUSY), or one joined at once (no EBUSY). */
static struct { pthread_t t; int fd[2]; } threads[2];

static void *sleeper(void *arg)
{
	char c;

	return (void *)read((long)arg, &c, 1);
}

static void op_thread(int unused)
{
	int i = m.threads;
	pthread_t t;

	if (i > 0 && chance(50)) {
		CALL("join a blocked thread%s", model());
		/* A byte, not end of file: a forked child has the pipe too. */
		if (write(threads[i - 1].fd[1], "", 1) == 1)
			pthread_join(threads[i - 1].t, NULL);
		close(threads[i - 1].fd[0]);
		close(threads[i - 1].fd[1]);
		m.threads--;
	} else if (i < 2 && chance(50)) {
		CALL("start a thread that stays%s", model());
		if (!pipe(threads[i].fd) &&
		    !pthread_create(&threads[i].t, NULL, sleeper,
				    (void *)(long)threads[i].fd[0]))
			m.threads++;
	} else if (!pthread_create(&t, NULL, sleeper, (void *)-1L)) {
		/* Issue 10: once pthread_join() returns, no spurious EBUSY. */
		pthread_join(t, NULL);
		if (!m.nosuid)
			set_prctl(PR_SET_NOSUID, 1, 0, 0, 0);
		else if (have_net && !m.gated)
			set_prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0);
	}
}

static pid_t tracer_of(pid_t pid)
{
	char path[64], buf[2048], *p;
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strstr(buf, "TracerPid:");
	return p ? atoi(p + 10) : -1;
}

/* A child that PTRACE_TRACEMEs and stops: then we ptrace a task. */
static void op_tracee(int unused)
{
	pid_t pid;

	if (m.tracee) {
		CALL("kill the tracee%s", model());
		kill(m.tracee, SIGKILL);
		waitpid(m.tracee, NULL, __WALL);
		m.tracee = 0;
		m.traced = false;
		return;
	}
	CALL("fork a child that PTRACE_TRACEMEs and stops%s", model());
	pid = fork();
	if (pid == 0) {
		close(report_fd);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);		/* traced or not, a stop to wait for */
		for (;;)
			pause();
	}
	if (pid > 0 && waitpid(pid, NULL, WUNTRACED | __WALL) == pid) {
		m.tracee = pid;
		m.traced = tracer_of(pid) == getpid();
	}
}

/* Contract 3 in a forked or exec'd child: 0, or which check failed. */
static int inherited(int nosuid, int gated, int kept)
{
	struct addr a = loopback(AF_INET, 9);

	have_net = prctl(PR_GET_NETWORK, 0, 0, 0, 0) >= 0;
	if (prctl(PR_GET_NOSUID, 0, 0, 0, 0) != nosuid)
		return 1;
	if (nosuid && prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return 2;
	if (have_net && prctl(PR_GET_NETWORK, 0, 0, 0, 0) != gated)
		return 3;
	close(status_fd);
	status_fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	read_status();
	if (status_num("NoSUID", 10) != nosuid ||
	    (have_net && status_num("NoNetwork", 10) != gated))
		return 4;
	if (gated && socket(AF_INET, SOCK_DGRAM, 0) >= 0)
		return 5;
	if (gated && kept >= 0 &&
	    sendto(kept, "x", 1, MSG_DONTWAIT, &a.sa, a.len) >= 0)
		return 6;
	return 0;
}

static void op_fork_check(int unused)
{
	static const char *const what[] = { "", "PR_GET_NOSUID",
		"PR_GET_NO_NEW_PRIVS", "PR_GET_NETWORK", "/proc/self/status",
		"socket(AF_INET) succeeded", "sendto() an address succeeded" };
	bool exec = chance(30);
	int status;
	pid_t pid;

	CALL("%s a child that checks what it inherited%s",
	     exec ? "fork and exec" : "fork", model());
	pid = fork();
	if (pid == 0) {
		char n[2] = { '0' + m.nosuid }, g[2] = { '0' + m.gated };

		if (exec)	/* 100: could not exec, not a failure */
			execl("/proc/self/exe", "nosuid_fuzz", "--inherited", n, g, NULL);
		_exit(exec ? 100 : inherited(m.nosuid, m.gated, pristine[0]));
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid &&
	    (!WIFEXITED(status) || (WEXITSTATUS(status) &&
				    WEXITSTATUS(status) < ARRAY_SIZE(what))))
		violation("the child found %s wrong", WIFEXITED(status) ?
			  what[WEXITSTATUS(status)] : "itself killed,");
}

/*
 * unshare(CLONE_NEWNET) in a forked child (the round keeps its netns, its
 * servers and its counts): only CAP_SYS_ADMIN or the nosuid flag may make
 * one (the flag only where kernel.nosuid_netns_clone exists and is 1:
 * layer 3 of the series, and its switch), a nosuid task within its
 * allowance (ENOSPC past it, with earlier rounds' namespaces perhaps not
 * torn down yet; EBUSY for a ring's worker it would leave behind), and the
 * gate holds in the new namespace.  Each success charges
 * user.max_nosuid_net_namespaces: make fuzz checks that the charge comes
 * back to zero after the rounds.
 */
static void op_unshare_net(int unused)
{
	bool admin;
	int status, code;
	pid_t pid;

	read_status();
	admin = status_num("CapEff", 16) & (1ULL << CAP_SYS_ADMIN);

	CALL("unshare(CLONE_NEWNET) in a forked child%s", model());
	pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWNET))
			_exit(errno == EPERM ? 1 : errno == ENOSPC ? 2 :
			      errno == EBUSY ? 3 : 4);
		_exit(m.gated && socket(AF_INET, SOCK_DGRAM, 0) >= 0 ? 5 : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		violation("the child did not exit");
	code = WEXITSTATUS(status);
	if (code == 5)
		violation("socket(AF_INET) succeeded in the new namespace");
	if (code == 4)
		violation("unexpected errno");
	if (!admin && !m.nosuid && code != 1)
		violation("%s without CAP_SYS_ADMIN or nosuid",
			  code ? "not EPERM" : "succeeded");
	if (!admin && m.nosuid && netns_for_nosuid && code == 1)
		violation("EPERM for a nosuid task");
	if (!admin && m.nosuid && !netns_for_nosuid && code != 1)
		violation("%s without CAP_SYS_ADMIN, kernel.nosuid_netns_clone absent or 0",
			  code ? "not EPERM" : "succeeded");
}

static const struct { void (*fn)(int); int arg, weight; } ops[] = {
	{ op_prctl, 0, 6 }, { op_prctl, 1, 6 }, { op_prctl, 2, 2 },
	{ op_socket, 0, 5 }, { op_socket, 1, 1 }, { op_socket, 2, 3 },
	{ op_endpoint, 0, 5 }, { op_endpoint, 1, 5 }, { op_endpoint, 2, 2 },
	{ op_endpoint, 3, 3 }, { op_send, 0, 5 }, { op_send, 1, 6 },
	{ op_send, 2, 3 }, { op_setsockopt, 0, 8 }, { op_setsockopt, 1, 3 },
	{ op_ring_setup, 0, 2 }, { op_thread, 0, 2 }, { op_tracee, 0, 1 },
	{ op_fork_check, 0, 1 }, { op_unshare_net, 0, 1 },
};

static void capset_to(uint32_t caps)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { { caps, caps, caps } };

	syscall(SYS_capset, &hdr, data);
}

/*
 * A random privilege state: the user (most often); root; root with
 * SECBIT_NOROOT and no capabilities; mixed uids, gids or fsuid; the user
 * in group 0, or with gid 0; the user with a permitted (and maybe
 * ambient) capability.  The model reads back what the kernel made of it.
 */
static void set_privilege(void)
{
	const uid_t U = USER_ID, ids[] = { 0, U, U + 1 };
	gid_t groups[] = { U + 5, 0 };
	uid_t r = 0, e = 0, s = 0;
	int state = chance(45) ? 0 : rnd(7);

	if (state == 1) {
		prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED);
		capset_to(0);
	} else if (state == 2) {
		while (r == e && e == s) {
			r = PICK(ids);
			e = PICK(ids);
			s = PICK(ids);
		}
		setgroups(0, NULL);
		if (chance(20)) {
			setfsuid(U);	/* root, but another fsuid */
		} else if (chance(50)) {
			setresgid(U, U, U);
			setresuid(r, e, s);
		} else {
			setresgid(r, e, s);
			setresuid(U, U, U);
		}
	} else if (state != 3) {	/* 3: root as it is */
		gid_t g = state == 5 ? 0 : U;

		if (state != 4)
			setgroups(0, NULL);
		else if (chance(50))
			setgroups(2, groups);		/* 1005 and 0 */
		else
			setgroups(1, groups + 1);	/* 0 alone */
		prctl(PR_SET_KEEPCAPS, state == 6);
		setresgid(g, g, g);
		setresuid(U, U, U);
		if (state == 6) {
			capset_to(1u << CAP_NET_BIND_SERVICE);
			if (chance(50))
				prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE,
				      CAP_NET_BIND_SERVICE, 0, 0);
		}
	}
	/* A uid change clears dumpable: keep /proc/PID as readable as before. */
	prctl(PR_SET_DUMPABLE, 1);
}

/* A hang: say in which call, as a violation. */
static void on_alarm(int sig)
{
	violation("still running after %d s", CHILD_ALARM);
}

static __noreturn void child(void)
{
	struct pollfd pfd = { .events = POLLIN };
	unsigned int total = 0, i, pick;
	char buf[8];

	setpgid(0, 0);
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);
	alarm(CHILD_ALARM);
	rng = (seed + 1) * 0x9E3779B97F4A7C15ULL ^ round_no;
	rng = next64() | 1;
	status_fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	CALL("setup");
	setup_sockets();
	if (chance(15))		/* a ring made while root */
		op_ring_setup(0);
	set_privilege();
	read_facts();
	if (chance(15))
		op_ring_setup(0);
	if (chance(15))
		op_thread(0);
	if (chance(8))
		op_tracee(0);
	check_state();
	/* Often close the gate at once: most calls then come behind it. */
	if (chance(40)) {
		unsigned long tsync = m.threads && chance(70) ? 1 : 0;

		set_prctl(PR_SET_NOSUID, 1, tsync, 0, 0);
		if (have_net)
			set_prctl(PR_SET_NETWORK, PR_NETWORK_OFF, tsync, 0, 0);
		check_state();
	}
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		total += ops[i].weight;
	for (unsigned int n = 0; n < calls_per_round; n++) {
		for (i = 0, pick = rnd(total); pick >= ops[i].weight; i++)
			pick -= ops[i].weight;
		ops[i].fn(ops[i].arg);
		check_state();
	}
	/* A kept socket keeps its peer: a plain send still comes back. */
	CALL("send() and recv() on a kept connected UDP socket%s", model());
	pfd.fd = pristine[1];
	if (send(pristine[0], "ping", 4, MSG_DONTWAIT) != 4 ||
	    poll(&pfd, 1, 2000) != 1 ||
	    recv(pristine[1], buf, sizeof(buf), MSG_DONTWAIT) != 4)
		violation("%s", strerror(errno));
	send_stats();
	_exit(0);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A report line: "V ..." a violation, "S ..." the child's counts. */
static bool report_line(char *line)
{
	struct stats s = {};
	int off = 0, n;

	if (line[0] == 'V') {
		ksft_print_msg("%s\n", line + 2);
		return false;
	}
	if (sscanf(line, "S %lu %lu %u %u%n", &s.calls, &s.gated_calls,
		   &s.nosuid, &s.gated, &off) < 4)
		return true;
	for (int i = 0; i < C_COUNT && sscanf(line + off, "%lu%n", &s.ctl[i], &n) == 1;
	     i++, off += n)
		total.ctl[i] += s.ctl[i];
	total.calls += s.calls;
	total.gated_calls += s.gated_calls;
	total.nosuid += s.nosuid;
	total.gated += s.gated;
	return true;
}

/* One round: a child, its report, and nothing left behind. */
static bool run_round(unsigned int r)
{
	double deadline = now() + CHILD_DEADLINE;
	char buf[8192], *line, *nl;
	bool ok = true, hung = false;
	int p[2], status = 0;
	struct dirent *e;
	size_t have = 0;
	ssize_t n;
	pid_t pid;
	DIR *d;

	round_no = r;
	if (pipe2(p, O_CLOEXEC))
		ksft_exit_fail_perror("pipe2/fork");
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_perror("pipe2/fork");
	if (pid == 0) {
		close(p[0]);
		report_fd = p[1];
		child();
	}
	setpgid(pid, pid);
	close(p[1]);
	/*
	 * Read to end of file: the child and all it forked are gone.  Its
	 * alarm() ends a hang; one that cannot take the signal (stopped, say)
	 * is killed with its whole group at the deadline.
	 */
	for (;;) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };

		if (poll(&pfd, 1, 1000) <= 0) {
			if (now() > deadline && !hung) {
				kill(-pid, SIGKILL);
				hung = true;
			}
			continue;
		}
		n = read(p[0], buf + have, sizeof(buf) - 1 - have);
		if (n <= 0)
			break;
		have += n;
	}
	close(p[0]);
	waitpid(pid, &status, 0);
	/* Tracees, and grandchildren we are the subreaper of. */
	kill(-pid, SIGKILL);
	while (waitpid(-1, NULL, __WALL) > 0)
		;
	buf[have] = '\0';
	for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		ok &= report_line(line);
	}
	if (hung)
		ksft_print_msg("round %u (seed %llu): the child hung, killed\n", r, seed);
	else if (WIFSIGNALED(status) || (ok && WEXITSTATUS(status)))
		ksft_print_msg("round %u (seed %llu): the child ended with status %#x\n",
			       r, seed, status);
	ok &= !hung && WIFEXITED(status) && (!ok || !WEXITSTATUS(status));
	if (!ok)
		ksft_print_msg("replay: nosuid_fuzz --seed %llu --round %u\n", seed, r);
	d = opendir(dir);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	return ok;
}

static int usage(const char *argv0, int ret)
{
	printf("%s: %s [--seed N] [--iterations N] [--first N] [--round N] [--calls N]\n"
	       "  --seed N        the run's seed (default 12345)\n"
	       "  --iterations N  rounds, a child each (default %u, or\n"
	       "                  $NOSUID_FUZZ_ITERATIONS)\n"
	       "  --first N       number the rounds from N (default 1): a long\n"
	       "                  run in parts, as make fuzz runs it\n"
	       "  --round N       run round N alone, to replay a failure\n"
	       "  --calls N       fuzzed calls a round (default %u)\n"
	       "Runs as root: each round drops privilege itself.\n",
	       __func__, argv0, DEFAULT_ROUNDS, calls_per_round);
	return ret;
}

/* Does the file hold "1"?  False when it is absent. */
static bool sysctl_is_one(const char *path)
{
	char buf[4] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) < 0)
			buf[0] = '\0';
		close(fd);
	}
	return buf[0] == '1';
}

/* A whole, non-negative number, or false. */
static bool number(const char *s, unsigned long long *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

int main(int argc, char **argv)
{
	unsigned long long rounds = DEFAULT_ROUNDS, first = 1, v;
	const char *env = getenv("NOSUID_FUZZ_ITERATIONS");
	unsigned int failed = 0;
	char missing[256] = "";
	double start, secs;

	if (argc == 4 && !strcmp(argv[1], "--inherited"))
		return inherited(atoi(argv[2]), atoi(argv[3]), -1);
	if (env && *env && !number(env, &rounds))
		return usage(argv[0], KSFT_FAIL);
	for (int i = 1; i < argc; i += 2) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return usage(argv[0], KSFT_PASS);
		if (!number(argv[i + 1], &v) ||
		    (v > UINT_MAX && strcmp(argv[i], "--seed")))
			return usage(argv[0], KSFT_FAIL);
		if (!strcmp(argv[i], "--seed")) {
			seed = v;
		} else if (!strcmp(argv[i], "--iterations")) {
			rounds = v;
		} else if (!strcmp(argv[i], "--first")) {
			first = v;
		} else if (!strcmp(argv[i], "--round")) {
			rounds = 1;
			first = v;
		} else if (!strcmp(argv[i], "--calls")) {
			calls_per_round = v;
		} else {
			return usage(argv[0], KSFT_FAIL);
		}
	}

	ksft_print_header();
	if (prctl(PR_GET_NOSUID, 0, 0, 0, 0) < 0 && errno == EINVAL)
		ksft_exit_skip("kernel without PR_SET_NOSUID\n");
	if (geteuid())
		ksft_exit_skip("not root: each round drops privilege itself\n");
	/* Without the LSM in lsm=, PR_*_NETWORK are unknown: fuzz nosuid. */
	have_net = prctl(PR_GET_NETWORK, 0, 0, 0, 0) >= 0;
	/* Root holds privilege: EACCES with the TSYNC flag, EINVAL without. */
	have_tsync = !(prctl(PR_SET_NOSUID, 1, 1, 0, 0) < 0 && errno == EINVAL);
	netns_for_nosuid = sysctl_is_one("/proc/sys/kernel/nosuid_netns_clone");
	ksft_set_plan(2);
	ksft_print_msg("seed %llu\n", seed);
	snprintf(dir, sizeof(dir), "/tmp/nosuid_fuzz.XXXXXX");
	if (!mkdtemp(dir) || chmod(dir, 0777))
		ksft_exit_fail_perror("mkdtemp");
	/* Orphaned tracees and grandchildren come back to us to be reaped. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	start = now();
	for (unsigned long long r = first; r < first + rounds; r++)
		failed += !run_round(r);
	secs = now() - start;
	rmdir(dir);

	ksft_print_msg("%llu rounds: %lu calls in %.1f s, %.0f calls/s, %.1f ms a round\n",
		       rounds, total.calls, secs, total.calls / (secs ? secs : 1),
		       rounds ? secs * 1000 / rounds : 0.0);
	ksft_print_msg("nosuid in %u rounds, gate closed in %u, %lu calls behind it\n",
		       total.nosuid, total.gated, total.gated_calls);
	for (int i = 0; i < C_COUNT; i++) {
		ksft_print_msg("control: %-16s succeeded %lu times before the gate\n",
			       ctl_name[i], total.ctl[i]);
		if (!total.ctl[i])
			snprintf(missing + strlen(missing),
				 sizeof(missing) - strlen(missing), " %s", ctl_name[i]);
	}
	ksft_test_result(!failed, "fuzz: %u of %llu rounds broke the contract\n",
			 failed, rounds);
	if (rounds < MIN_ROUNDS_FOR_CONTROLS || !have_net)
		ksft_test_result_skip("controls: %s\n", have_net ? "too few rounds" :
				      "PR_SET_NETWORK unknown (LSM not enabled)");
	else
		ksft_test_result(total.gated && !missing[0],
				 "controls: gate closed in %u rounds; never succeeded before it:%s\n",
				 total.gated, missing[0] ? missing : " none");
	ksft_finished();
}
