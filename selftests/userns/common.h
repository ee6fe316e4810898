/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the tests of unprivileged CLONE_NEWNET for nosuid tasks.
 *
 * Every test starts as root in the initial network namespace and drops to
 * the unprivileged user itself, in the test process or in a child, so that
 * the same operation can be shown to succeed with privilege (the control)
 * and to be refused without it.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/nsfs.h>
#include <linux/prctl.h>
#include <linux/rtnetlink.h>
#include <linux/sched.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"

#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif

#define USER_ID 1000
#define NETNS_CLONE_SYSCTL "/proc/sys/kernel/nosuid_netns_clone"
#define MAX_NETNS_SYSCTL "/proc/sys/user/max_net_namespaces"

#define NO_FEATURE "kernel without unprivileged CLONE_NEWNET for nosuid tasks"

/*
 * The sysctl comes with the feature: its absence is how an older kernel,
 * where a nosuid unshare(CLONE_NEWNET) is still EPERM, is told apart from
 * a kernel that refuses by mistake.
 */
static inline bool have_nosuid_netns(void)
{
	return access(NETNS_CLONE_SYSCTL, F_OK) == 0;
}

#define REQUIRE_NOSUID_NETNS() \
	do { \
		if (!have_nosuid_netns()) \
			SKIP(return, NO_FEATURE); \
	} while (0)

/* Layer 1 is below this one: without it nothing here can run. */
#define REQUIRE_NOSUID() \
	do { \
		if (prctl(PR_GET_NOSUID, 0, 0, 0, 0) < 0 && errno == EINVAL) \
			SKIP(return, "kernel lacks PR_SET_NOSUID"); \
	} while (0)

/*
 * Becomes uid/gid test_uid (1000) without groups or capabilities and, if asked,
 * nosuid.  The uid change clears the dumpable flag, which would make
 * /proc/PID/ns/net of the other test processes unreadable for a reason that
 * has nothing to do with what is tested: set it again.
 */
/* The unprivileged user; a test may pick another before it forks. */
static uid_t test_uid = USER_ID;

static inline void drop_to_user(struct __test_metadata *const _metadata,
				bool nosuid)
{
	ASSERT_EQ(0, setgroups(0, NULL));
	ASSERT_EQ(0, setresgid(test_uid, test_uid, test_uid));
	ASSERT_EQ(0, setresuid(test_uid, test_uid, test_uid));
	ASSERT_EQ(0, prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
	if (nosuid) {
		ASSERT_EQ(0, prctl(PR_SET_NOSUID, 1, 0, 0, 0));
		ASSERT_EQ(1, prctl(PR_GET_NOSUID, 0, 0, 0, 0));
	}
}

static inline ino_t ns_ino(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return 0;
	return st.st_ino;
}

static inline ino_t netns_ino(void)
{
	return ns_ino("/proc/self/ns/net");
}

static inline int sys_clone3(struct clone_args *args)
{
	return syscall(__NR_clone3, args, sizeof(*args));
}

/* fork() through the raw clone(2) system call, so that flags can be added. */
static inline pid_t sys_clone(uint64_t flags)
{
	return syscall(__NR_clone, flags | SIGCHLD, NULL, NULL, NULL, 0);
}

static inline int sys_pidfd_open(pid_t pid)
{
	return syscall(__NR_pidfd_open, pid, 0);
}

/* Returns the value of a sysctl, or -1. */
static inline int read_sysctl(const char *path)
{
	char buf[32] = {};
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoi(buf) : -1;
}

/* Returns 0 or the errno of the open or of the write. */
static inline int write_sysctl(const char *path, int value)
{
	char buf[32];
	int fd, len, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	len = snprintf(buf, sizeof(buf), "%d\n", value);
	if (write(fd, buf, len) != len)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

/* Monotonic time in seconds. */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A field of /proc/meminfo in KiB, or -1. */
static inline long meminfo_kib(const char *field)
{
	char line[128];
	size_t len = strlen(field);
	long value = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':')
			value = atol(line + len + 1);
	fclose(f);
	return value;
}

/*
 * MemAvailable, in KiB, with the per-CPU counters folded in first: they
 * reach the global ones only every vm.stat_interval otherwise, and a few
 * namespaces would hide in them.  Writing vm/stat_refresh needs root.
 */
static inline long mem_available_kib(void)
{
	if (write_sysctl("/proc/sys/vm/stat_refresh", 1))
		sleep(2);
	return meminfo_kib("MemAvailable");
}

/* Returns the flags of interface @name in the caller's netns, or -errno. */
static inline int get_if_flags(const char *name)
{
	struct ifreq ifr = {};
	int fd, ret;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	ret = ioctl(fd, SIOCGIFFLAGS, &ifr) ? -errno : (unsigned short)ifr.ifr_flags;
	close(fd);
	return ret;
}

/* Sets or clears IFF_UP on @name; returns 0 or the errno of SIOCSIFFLAGS. */
static inline int set_if_up(const char *name, bool up)
{
	struct ifreq ifr = {};
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr)) {
		err = errno;
	} else {
		if (up)
			ifr.ifr_flags |= IFF_UP;
		else
			ifr.ifr_flags &= ~IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr))
			err = errno;
	}
	close(fd);
	return err;
}

/* Adds IPv4 @addr as alias @name (e.g. "lo:1"); returns 0 or errno. */
static inline int add_addr_ioctl(const char *name, const char *addr)
{
	struct ifreq ifr = {};
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, addr, &sin->sin_addr);
	if (ioctl(fd, SIOCSIFADDR, &ifr))
		err = errno;
	close(fd);
	return err;
}

/*
 * Adds IPv4 @addr/32 to the interface @ifindex with an RTM_NEWADDR request;
 * returns 0 or the errno of the request (from the netlink ack).
 */
static inline int add_addr_netlink(int ifindex, const char *addr)
{
	struct {
		struct nlmsghdr nh;
		struct ifaddrmsg ifa;
		char attrs[2 * RTA_SPACE(sizeof(struct in_addr))];
	} req = {};
	struct {
		struct nlmsghdr nh;
		struct nlmsgerr err;
	} ack = {};
	struct rtattr *rta;
	int fd, err;
	int types[] = { IFA_LOCAL, IFA_ADDRESS };

	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifa));
	req.nh.nlmsg_type = RTM_NEWADDR;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE |
			     NLM_F_EXCL;
	req.ifa.ifa_family = AF_INET;
	req.ifa.ifa_prefixlen = 32;
	req.ifa.ifa_index = ifindex;
	for (int i = 0; i < 2; i++) {
		rta = (struct rtattr *)((char *)&req +
					NLMSG_ALIGN(req.nh.nlmsg_len));
		rta->rta_type = types[i];
		rta->rta_len = RTA_LENGTH(sizeof(struct in_addr));
		inet_pton(AF_INET, addr, RTA_DATA(rta));
		req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) +
				   RTA_ALIGN(rta->rta_len);
	}

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return errno;
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0)
		err = errno;
	else if (recv(fd, &ack, sizeof(ack), 0) < (ssize_t)sizeof(ack) ||
		 ack.nh.nlmsg_type != NLMSG_ERROR)
		err = EPROTO;
	else
		err = -ack.err.error;
	close(fd);
	return err;
}

/* Fills @ss with @family's @addr and @port; returns the address length. */
static inline socklen_t make_addr(struct sockaddr_storage *ss, int family,
				  const char *addr, unsigned short port)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		inet_pton(AF_INET6, addr, &s6->sin6_addr);
		return sizeof(*s6);
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	s4->sin_family = AF_INET;
	s4->sin_port = htons(port);
	inet_pton(AF_INET, addr, &s4->sin_addr);
	return sizeof(*s4);
}

/* Returns 0 if @addr can be bound, i.e. is configured here, or errno. */
static inline int try_bind(int family, const char *addr)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(&ss, family, addr, 0);
	int fd, err = 0;

	fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	if (bind(fd, (struct sockaddr *)&ss, len))
		err = errno;
	close(fd);
	return err;
}

/*
 * Returns a socket of @type listening (or, for datagrams, bound) on @addr
 * with a port chosen by the kernel, and that address in @ss and @len.
 */
static inline int listen_on(struct __test_metadata *const _metadata,
			    int family, int type, const char *addr,
			    struct sockaddr_storage *ss, socklen_t *len)
{
	int fd;

	*len = make_addr(ss, family, addr, 0);
	fd = socket(family, type | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, bind(fd, (struct sockaddr *)ss, *len));
	if (type == SOCK_STREAM)
		ASSERT_EQ(0, listen(fd, 8));
	ASSERT_EQ(0, getsockname(fd, (struct sockaddr *)ss, len));
	return fd;
}

/* Sends @msg from @from and checks that @to receives exactly it. */
static inline void pass_msg(struct __test_metadata *const _metadata, int from,
			    int to, const char *msg)
{
	char buf[64] = {};
	ssize_t len = strlen(msg);

	ASSERT_EQ(len, send(from, msg, len, 0));
	ASSERT_EQ(len, recv(to, buf, sizeof(buf) - 1, 0));
	ASSERT_STREQ(msg, buf);
}

/*
 * A client and a server, both in the caller: a message goes to the server
 * and the server's reply comes back.
 */
static inline void echo(struct __test_metadata *const _metadata, int family,
			int type, const char *addr)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int srv, cli, peer;

	srv = listen_on(_metadata, family, type, addr, &ss, &len);
	cli = socket(family, type | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, cli);
	ASSERT_EQ(0, connect(cli, (struct sockaddr *)&ss, len));
	if (type == SOCK_STREAM) {
		peer = accept(srv, NULL, NULL);
		ASSERT_LE(0, peer);
	} else {
		/* Connect the server back to the client to reply with send(). */
		ASSERT_EQ(0, getsockname(cli, (struct sockaddr *)&ss, &len));
		ASSERT_EQ(0, connect(srv, (struct sockaddr *)&ss, len));
		peer = srv;
	}
	pass_msg(_metadata, cli, peer, "ping");
	pass_msg(_metadata, peer, cli, "pong");
	if (peer != srv)
		close(peer);
	close(cli);
	close(srv);
}

/* Returns 0 or the errno of a TCP connect() to @addr:@port. */
static inline int try_connect(int family, const char *addr,
			      unsigned short port)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(&ss, family, addr, port);
	int fd, err = 0;

	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	if (connect(fd, (struct sockaddr *)&ss, len))
		err = errno;
	close(fd);
	return err;
}

static inline unsigned short port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

/* Drops @cap from the effective set only (uid 0 stays uid 0). */
static inline int drop_effective_cap(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(__NR_capget, &hdr, data))
		return errno;
	data[CAP_TO_INDEX(cap)].effective &= ~CAP_TO_MASK(cap);
	if (syscall(__NR_capset, &hdr, data))
		return errno;
	return 0;
}

/* Waits for @pid and returns its exit status, or -1 if it did not exit. */
static inline int wait_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Returns the number after "@name:" in /proc/self/status, or -1. */
static inline int status_field(const char *name)
{
	char line[256];
	size_t len = strlen(name);
	int value = -1;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':')
			value = atoi(line + len + 1);
	fclose(f);
	return value;
}

enum who {
	ROOT,
	USER,		/* uid 1000 */
	NOSUID_USER,	/* uid 1000, nosuid */
};

/*
 * Runs @fn(@arg) in a child as @who and returns what it returned, or -1 if
 * the child ended without an answer.  The result comes through a pipe, not
 * the exit status, which the harness uses for its own verdicts.
 */
static inline int in_child(struct __test_metadata *const _metadata,
			   enum who who, int (*fn)(void *), void *arg)
{
	int pipefd[2], ret = -1;
	pid_t pid;

	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(pipefd[0]);
		if (who != ROOT)
			drop_to_user(_metadata, who == NOSUID_USER);
		ret = fn(arg);
		if (write(pipefd[1], &ret, sizeof(ret)) != sizeof(ret))
			_exit(1);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &ret, sizeof(ret)) != sizeof(ret))
		ret = -1;
	close(pipefd[0]);
	waitpid(pid, NULL, 0);
	return ret;
}
