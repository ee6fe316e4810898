// SPDX-License-Identifier: GPL-2.0
/*
 * Unprivileged CLONE_NEWNET for nosuid tasks.
 *
 * A nosuid task can never gain privilege again, so no privileged program
 * can be confused by running in a network namespace it made: such a task
 * may unshare(CLONE_NEWNET) or clone() into a new netns without
 * CAP_SYS_ADMIN, unless kernel.nosuid_netns_clone is 0.  Nothing else
 * changes: other namespace flags, setns() and the configuration of the new
 * namespace still need privilege, and the per-user limit still counts.
 */

#define _GNU_SOURCE
#include <libgen.h>
#include <limits.h>

#include "common.h"

/*
 * These tests create many namespaces in a row, and a namespace's charge is
 * given back only when its asynchronous teardown has run: the separate
 * per-user bound on nosuid namespaces (about 10 in the test guest, tested
 * by netns_limit_test) would turn that lag into spurious ENOSPC here.
 * Raise it for this program, and put it back when the program ends.
 */
#define MAX_NOSUID_NETNS_SYSCTL "/proc/sys/user/max_nosuid_net_namespaces"
static int saved_max_nosuid_netns = -1;
static pid_t sysctl_owner;

static void __attribute__((constructor)) raise_nosuid_netns_limit(void)
{
	if (geteuid())
		return;
	saved_max_nosuid_netns = read_sysctl(MAX_NOSUID_NETNS_SYSCTL);
	if (saved_max_nosuid_netns >= 0 &&
	    !write_sysctl(MAX_NOSUID_NETNS_SYSCTL, 10000))
		sysctl_owner = getpid();
}

static void __attribute__((destructor)) restore_nosuid_netns_limit(void)
{
	if (sysctl_owner && getpid() == sysctl_owner)
		write_sysctl(MAX_NOSUID_NETNS_SYSCTL, saved_max_nosuid_netns);
}

enum method {
	METHOD_UNSHARE,
	METHOD_CLONE,
	METHOD_CLONE3,
};

/* What a task started by new_task() saw. */
struct report {
	int err;	/* errno of unshare(), or 0 */
	ino_t netns;	/* its network namespace */
	int action;	/* what the optional action returned */
};

/*
 * Starts a task with @flags through @method (for unshare, a forked child
 * calls it), runs @action in it and returns 0 or the errno of the call.
 * What the new task saw goes to @r.
 */
static int new_task(enum method method, __u64 flags, int (*action)(void),
		    struct report *r)
{
	struct clone_args args = {
		.flags = flags,
		.exit_signal = SIGCHLD,
	};
	int pipefd[2], err;
	pid_t pid = -1;

	memset(r, 0, sizeof(*r));
	r->err = EPROTO;
	if (pipe2(pipefd, O_CLOEXEC))
		return errno;
	switch (method) {
	case METHOD_UNSHARE:
		pid = fork();
		break;
	case METHOD_CLONE:
		pid = sys_clone(flags);
		break;
	case METHOD_CLONE3:
		pid = sys_clone3(&args);
		break;
	}
	if (pid == 0) {
		struct report c = {};

		if (method == METHOD_UNSHARE && unshare(flags))
			c.err = errno;
		c.netns = netns_ino();
		if (!c.err && action)
			c.action = action();
		if (write(pipefd[1], &c, sizeof(c)) != sizeof(c))
			_exit(1);
		_exit(0);
	}
	err = errno;
	close(pipefd[1]);
	if (pid < 0) {
		close(pipefd[0]);
		return r->err = err;
	}
	if (read(pipefd[0], r, sizeof(*r)) != sizeof(*r))
		r->err = EPROTO;
	close(pipefd[0]);
	waitpid(pid, NULL, 0);
	return r->err;
}

static int set_lo_up(void)
{
	return set_if_up("lo", true);
}

/* Returns 1 if lo is up and has both loopback addresses, 0 if not. */
static int lo_ready(void)
{
	const int flags = get_if_flags("lo");

	return flags >= 0 && (flags & IFF_UP) &&
	       !try_bind(AF_INET, "127.0.0.1") && !try_bind(AF_INET6, "::1");
}

static int unshare_netns(void *arg)
{
	return unshare(CLONE_NEWNET) ? errno : 0;
}

static int clone3_netns(void *arg)
{
	struct report r;

	return new_task(METHOD_CLONE3, CLONE_NEWNET, NULL, &r);
}

static int unshare_user_netns(void *arg)
{
	return unshare(CLONE_NEWUSER | CLONE_NEWNET) ? errno : 0;
}

static int unshare_userns(void *arg)
{
	return unshare(CLONE_NEWUSER) ? errno : 0;
}

/* How a task gets into a new network namespace: all three must behave alike. */
FIXTURE(create) {};

FIXTURE_VARIANT(create)
{
	enum method method;
	/* Flags that need no privilege, to go with CLONE_NEWNET. */
	__u64 unrelated;
};

FIXTURE_VARIANT_ADD(create, unshare) {
	.method = METHOD_UNSHARE,
	.unrelated = CLONE_FILES | CLONE_FS | CLONE_SYSVSEM,
};

/* The child of a vfork() only writes to a pipe and exits. */
FIXTURE_VARIANT_ADD(create, clone) {
	.method = METHOD_CLONE,
	.unrelated = CLONE_VFORK,
};

FIXTURE_VARIANT_ADD(create, clone3) {
	.method = METHOD_CLONE3,
	.unrelated = CLONE_VFORK | CLONE_CLEAR_SIGHAND,
};

FIXTURE_SETUP(create) {}

FIXTURE_TEARDOWN(create) {}

TEST_F(create, netns_needs_nosuid)
{
	const ino_t outer = netns_ino();
	struct report r;

	REQUIRE_NOSUID();
	drop_to_user(_metadata, false);
	/* Control: without nosuid, the usual refusal. */
	EXPECT_EQ(EPERM, new_task(variant->method, CLONE_NEWNET, NULL, &r));

	ASSERT_EQ(0, prctl(PR_SET_NOSUID, 1, 0, 0, 0));
	REQUIRE_NOSUID_NETNS();
	ASSERT_EQ(0, new_task(variant->method, CLONE_NEWNET, lo_ready, &r));
	EXPECT_NE(0, r.netns);
	EXPECT_NE(outer, r.netns);
	EXPECT_EQ(outer, netns_ino());
	/* Whichever way it was made, lo comes up (the caller cannot). */
	EXPECT_EQ(1, r.action);
}

/*
 * Control of netns_needs_nosuid: lo_ready() can tell, and a privileged
 * creator still gets the usual namespace, lo down, to set up as it likes.
 */
TEST_F(create, privileged_netns_unchanged)
{
	struct report r;

	ASSERT_EQ(0, new_task(variant->method, CLONE_NEWNET, lo_ready, &r));
	EXPECT_NE(netns_ino(), r.netns);
	EXPECT_EQ(0, r.action);
}

TEST_F(create, netns_with_unrelated_flags)
{
	const ino_t outer = netns_ino();
	const __u64 flags = CLONE_NEWNET | variant->unrelated;
	struct report r;

	REQUIRE_NOSUID();
	drop_to_user(_metadata, false);
	/* Control: the extra flags need no privilege, CLONE_NEWNET does. */
	EXPECT_EQ(0, new_task(variant->method, variant->unrelated, NULL, &r));
	EXPECT_EQ(EPERM, new_task(variant->method, flags, NULL, &r));

	ASSERT_EQ(0, prctl(PR_SET_NOSUID, 1, 0, 0, 0));
	REQUIRE_NOSUID_NETNS();
	ASSERT_EQ(0, new_task(variant->method, flags, NULL, &r));
	EXPECT_NE(0, r.netns);
	EXPECT_NE(outer, r.netns);
}

TEST_F(create, other_namespaces_refused)
{
	static const struct {
		__u64 flag;
		const char *name;
	} others[] = {
		{ CLONE_NEWUTS, "CLONE_NEWUTS" },
		{ CLONE_NEWNS, "CLONE_NEWNS" },
		{ CLONE_NEWIPC, "CLONE_NEWIPC" },
		{ CLONE_NEWPID, "CLONE_NEWPID" },
	};
	struct report r;
	size_t i;

	REQUIRE_NOSUID();
	/* Control: the combinations are valid, root gets each of them. */
	for (i = 0; i < ARRAY_SIZE(others); i++) {
		EXPECT_EQ(0, new_task(variant->method,
				      CLONE_NEWNET | others[i].flag, NULL, &r))
			TH_LOG("root: CLONE_NEWNET | %s", others[i].name);
	}

	drop_to_user(_metadata, true);
	for (i = 0; i < ARRAY_SIZE(others); i++) {
		EXPECT_EQ(EPERM, new_task(variant->method,
					  CLONE_NEWNET | others[i].flag, NULL,
					  &r))
			TH_LOG("nosuid: CLONE_NEWNET | %s", others[i].name);
		EXPECT_EQ(EPERM, new_task(variant->method, others[i].flag,
					  NULL, &r))
			TH_LOG("nosuid: %s", others[i].name);
	}

	/* What was refused was the other flag, not the netns. */
	REQUIRE_NOSUID_NETNS();
	EXPECT_EQ(0, new_task(variant->method, CLONE_NEWNET, NULL, &r));
}

TEST_F(create, newuser_keeps_its_rules)
{
	const ino_t outer = netns_ino();
	struct report r;

	REQUIRE_NOSUID();
	drop_to_user(_metadata, true);
	if (new_task(variant->method, CLONE_NEWUSER, NULL, &r))
		SKIP(return, "no unprivileged user namespaces: %s",
		     strerror(r.err));

	/*
	 * With its own user namespace, the netns belongs to that namespace:
	 * the task holds CAP_NET_ADMIN over it and may create the others too.
	 */
	ASSERT_EQ(0, new_task(variant->method, CLONE_NEWUSER | CLONE_NEWNET,
			      set_lo_up, &r));
	EXPECT_NE(outer, r.netns);
	EXPECT_EQ(0, r.action);
	EXPECT_EQ(0, new_task(variant->method,
			      CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWUTS |
			      CLONE_NEWIPC | CLONE_NEWNS | CLONE_NEWPID,
			      NULL, &r));

	/* Control: without it, the netns belongs to the init user ns. */
	REQUIRE_NOSUID_NETNS();
	ASSERT_EQ(0, new_task(variant->method, CLONE_NEWNET, set_lo_up, &r));
	EXPECT_EQ(EPERM, r.action);
}

/*
 * Inside a new netns, made by a nosuid user or, for the controls, by root
 * (whose lo starts down, as usual).
 */
FIXTURE(new_netns) {};

FIXTURE_VARIANT(new_netns)
{
	bool privileged;
};

FIXTURE_VARIANT_ADD(new_netns, nosuid_user) {
	.privileged = false,
};

FIXTURE_VARIANT_ADD(new_netns, root) {
	.privileged = true,
};

FIXTURE_SETUP(new_netns)
{
	const ino_t outer = netns_ino();

	if (!variant->privileged) {
		REQUIRE_NOSUID();
		drop_to_user(_metadata, true);
		REQUIRE_NOSUID_NETNS();
	}
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ASSERT_NE(outer, netns_ino());
	if (variant->privileged)
		ASSERT_EQ(0, set_if_up("lo", true));
}

FIXTURE_TEARDOWN(new_netns) {}

TEST_F(new_netns, lo_up_with_both_addresses)
{
	const int flags = get_if_flags("lo");

	ASSERT_LE(0, flags);
	EXPECT_TRUE(flags & IFF_UP);
	EXPECT_EQ(0, try_bind(AF_INET, "127.0.0.1"));
	EXPECT_EQ(0, try_bind(AF_INET6, "::1"));
	/* Control: an address that is not configured cannot be bound. */
	EXPECT_EQ(EADDRNOTAVAIL, try_bind(AF_INET, "192.0.2.1"));
	EXPECT_EQ(EADDRNOTAVAIL, try_bind(AF_INET6, "2001:db8::1"));
}

/* No user namespace was made behind the caller's back. */
TEST_F(new_netns, owned_by_callers_user_ns)
{
	struct stat st;
	int nsfd, owner;

	nsfd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, nsfd);
	owner = ioctl(nsfd, NS_GET_USERNS);
	ASSERT_LE(0, owner);
	ASSERT_EQ(0, fstat(owner, &st));
	EXPECT_EQ(ns_ino("/proc/self/ns/user"), st.st_ino);
	close(owner);
	close(nsfd);
}

TEST_F(new_netns, tcp4_echo)
{
	echo(_metadata, AF_INET, SOCK_STREAM, "127.0.0.1");
}

TEST_F(new_netns, tcp6_echo)
{
	echo(_metadata, AF_INET6, SOCK_STREAM, "::1");
}

TEST_F(new_netns, udp4_echo)
{
	echo(_metadata, AF_INET, SOCK_DGRAM, "127.0.0.1");
}

TEST_F(new_netns, udp6_echo)
{
	echo(_metadata, AF_INET6, SOCK_DGRAM, "::1");
}

/* Only lo, no route out (see address_of_old_netns_unreachable). */
TEST_F(new_netns, no_route_out)
{
	EXPECT_EQ(ENETUNREACH, try_connect(AF_INET, "192.0.2.1", 80));
	EXPECT_EQ(ENETUNREACH, try_connect(AF_INET, "10.0.2.2", 80));
	EXPECT_EQ(ENETUNREACH, try_connect(AF_INET6, "2001:db8::1", 80));
}

TEST_F(new_netns, take_lo_down)
{
	const int err = set_if_up("lo", false);

	if (variant->privileged) {
		/* Control: what the refusal prevents. */
		ASSERT_EQ(0, err);
		EXPECT_FALSE(get_if_flags("lo") & IFF_UP);
		/* addrconf drops ::1 with the link. */
		EXPECT_EQ(EADDRNOTAVAIL, try_bind(AF_INET6, "::1"));
	} else {
		ASSERT_EQ(EPERM, err);
		EXPECT_TRUE(get_if_flags("lo") & IFF_UP);
		EXPECT_EQ(0, try_bind(AF_INET6, "::1"));
		echo(_metadata, AF_INET6, SOCK_STREAM, "::1");
	}
}

TEST_F(new_netns, add_address_ioctl)
{
	const int err = add_addr_ioctl("lo:1", "192.0.2.1");

	if (variant->privileged) {
		ASSERT_EQ(0, err);
		EXPECT_EQ(0, try_bind(AF_INET, "192.0.2.1"));
	} else {
		ASSERT_EQ(EPERM, err);
		EXPECT_EQ(EADDRNOTAVAIL, try_bind(AF_INET, "192.0.2.1"));
	}
}

TEST_F(new_netns, add_address_netlink)
{
	const int ifindex = if_nametoindex("lo");
	int err;

	ASSERT_LT(0, ifindex);
	err = add_addr_netlink(ifindex, "192.0.2.2");
	if (variant->privileged) {
		ASSERT_EQ(0, err);
		EXPECT_EQ(0, try_bind(AF_INET, "192.0.2.2"));
	} else {
		ASSERT_EQ(EPERM, err);
		EXPECT_EQ(EADDRNOTAVAIL, try_bind(AF_INET, "192.0.2.2"));
	}
}

/* An address with a listener in the old netns is out of reach in the new. */
TEST(address_of_old_netns_unreachable)
{
	struct sockaddr_storage ss;
	unsigned short port;
	socklen_t len;
	int srv;

	REQUIRE_NOSUID();
	/* Root's own netns, so that the initial one is left alone. */
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ASSERT_EQ(0, set_if_up("lo", true));
	ASSERT_EQ(0, add_addr_ioctl("lo:1", "192.0.2.1"));
	srv = listen_on(_metadata, AF_INET, SOCK_STREAM, "192.0.2.1", &ss,
			&len);
	port = port_of(&ss);

	drop_to_user(_metadata, true);
	/* Control: reachable from the netns the listener lives in. */
	EXPECT_EQ(0, try_connect(AF_INET, "192.0.2.1", port));

	REQUIRE_NOSUID_NETNS();
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	EXPECT_EQ(ENETUNREACH, try_connect(AF_INET, "192.0.2.1", port));
	EXPECT_EQ(ECONNREFUSED, try_connect(AF_INET, "127.0.0.1", port));
	close(srv);
}

/*
 * A socket belongs to the netns it was created in: those opened before
 * unshare() keep working there, connected or not.
 */
TEST(sockets_opened_before_stay_behind)
{
	struct sockaddr_storage tcp, udp;
	socklen_t tcp_len, udp_len;
	int srv, rx, cli, peer, later, tx;
	const ino_t outer = netns_ino();
	char buf[8] = {};

	REQUIRE_NOSUID();
	/* Servers of root's in the initial netns. */
	srv = listen_on(_metadata, AF_INET, SOCK_STREAM, "127.0.0.1", &tcp,
			&tcp_len);
	rx = listen_on(_metadata, AF_INET, SOCK_DGRAM, "127.0.0.1", &udp,
		       &udp_len);

	drop_to_user(_metadata, true);
	cli = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, cli);
	/* Control: a connect() now reaches the server. */
	ASSERT_EQ(0, connect(cli, (struct sockaddr *)&tcp, tcp_len));
	peer = accept(srv, NULL, NULL);
	ASSERT_LE(0, peer);
	later = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, later);
	tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, tx);

	REQUIRE_NOSUID_NETNS();
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ASSERT_NE(outer, netns_ino());

	pass_msg(_metadata, cli, peer, "ping");
	pass_msg(_metadata, peer, cli, "pong");
	close(peer);
	ASSERT_EQ(0, connect(later, (struct sockaddr *)&tcp, tcp_len));
	peer = accept(srv, NULL, NULL);
	ASSERT_LE(0, peer);
	pass_msg(_metadata, later, peer, "late");
	ASSERT_EQ(4, sendto(tx, "dgrm", 4, 0, (struct sockaddr *)&udp,
			    udp_len));
	ASSERT_EQ(4, recv(rx, buf, sizeof(buf) - 1, 0));
	EXPECT_STREQ("dgrm", buf);

	/* A socket made now is in the new netns, where nothing listens. */
	EXPECT_EQ(ECONNREFUSED, try_connect(AF_INET, "127.0.0.1",
					    port_of(&tcp)));
}

/*
 * Joins the netns it is given through setns(): a /proc/PID/ns/net path or
 * a pid (then through a pidfd).  Returns 0, the errno of setns(), or -2
 * if the namespace could not even be opened.
 */
struct join {
	const char *path;
	pid_t pid;
	ino_t expect;
};

static int join_netns(void *arg)
{
	const struct join *j = arg;
	int fd, err = 0;

	fd = j->path ? open(j->path, O_RDONLY | O_CLOEXEC) :
		       sys_pidfd_open(j->pid);
	if (fd < 0)
		return -2;
	if (setns(fd, CLONE_NEWNET))
		err = errno;
	else if (netns_ino() != j->expect)
		err = -3;
	close(fd);
	return err;
}

TEST(setns_back_refused)
{
	ino_t outer, first;
	int orig, mine;

	REQUIRE_NOSUID();
	drop_to_user(_metadata, true);
	outer = netns_ino();
	orig = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, orig);
	REQUIRE_NOSUID_NETNS();

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	first = netns_ino();
	ASSERT_NE(outer, first);
	EXPECT_EQ(-1, setns(orig, CLONE_NEWNET));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, setns(orig, 0));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(first, netns_ino());

	/* Not even into a netns it made itself. */
	mine = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, mine);
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	EXPECT_EQ(-1, setns(mine, CLONE_NEWNET));
	EXPECT_EQ(EPERM, errno);
	EXPECT_NE(first, netns_ino());
}

/* Control of setns_back_refused: with privilege, the same steps work. */
TEST(setns_back_as_root)
{
	const ino_t outer = netns_ino();
	ino_t first;
	int orig, mine;

	orig = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, orig);
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	first = netns_ino();
	mine = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, mine);
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ASSERT_EQ(0, setns(mine, CLONE_NEWNET));
	EXPECT_EQ(first, netns_ino());
	ASSERT_EQ(0, setns(orig, 0));
	EXPECT_EQ(outer, netns_ino());
}

TEST(setns_into_other_nosuid_task_refused)
{
	int ready[2], hold[2];
	char path[64];
	struct join by_path, by_pidfd;
	ino_t target = 0;
	pid_t holder;
	char c;

	REQUIRE_NOSUID();
	REQUIRE_NOSUID_NETNS();
	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(hold, O_CLOEXEC));
	holder = fork();
	ASSERT_LE(0, holder);
	if (holder == 0) {
		close(hold[1]);
		drop_to_user(_metadata, true);
		ASSERT_EQ(0, unshare(CLONE_NEWNET));
		target = netns_ino();
		ASSERT_EQ(sizeof(target),
			  write(ready[1], &target, sizeof(target)));
		/* Keeps its netns until the test closes the pipe. */
		ASSERT_EQ(0, read(hold[0], &c, 1));
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	ASSERT_EQ(sizeof(target), read(ready[0], &target, sizeof(target)));
	ASSERT_NE(netns_ino(), target);

	snprintf(path, sizeof(path), "/proc/%d/ns/net", holder);
	by_path = (struct join){ .path = path, .expect = target };
	by_pidfd = (struct join){ .pid = holder, .expect = target };
	/* Control: with privilege, both ways in work. */
	EXPECT_EQ(0, in_child(_metadata, ROOT, join_netns, &by_path));
	EXPECT_EQ(0, in_child(_metadata, ROOT, join_netns, &by_pidfd));
	/* The namespace can be opened, but not entered. */
	EXPECT_EQ(EPERM, in_child(_metadata, NOSUID_USER, join_netns,
				  &by_path));
	EXPECT_EQ(EPERM, in_child(_metadata, NOSUID_USER, join_netns,
				  &by_pidfd));

	close(hold[1]);
	EXPECT_EQ(0, wait_status(holder));
}

/*
 * Global settings: kernel.nosuid_netns_clone and user.max_net_namespaces.
 * The parent puts them back even when a test fails half-way.
 */
FIXTURE(knobs)
{
	int clone;
	int max_netns;
};

FIXTURE_SETUP(knobs)
{
	self->clone = read_sysctl(NETNS_CLONE_SYSCTL);
	self->max_netns = read_sysctl(MAX_NETNS_SYSCTL);
	ASSERT_LT(0, self->max_netns);
}

FIXTURE_TEARDOWN_PARENT(knobs)
{
	if (self->clone >= 0)
		EXPECT_EQ(0, write_sysctl(NETNS_CLONE_SYSCTL, self->clone));
	if (self->max_netns > 0)
		EXPECT_EQ(0, write_sysctl(MAX_NETNS_SYSCTL, self->max_netns));
}

TEST_F(knobs, clone_sysctl_defaults_to_1)
{
	REQUIRE_NOSUID_NETNS();
	EXPECT_EQ(1, self->clone);
}

TEST_F(knobs, clone_sysctl_0_restores_eperm)
{
	REQUIRE_NOSUID();
	REQUIRE_NOSUID_NETNS();
	ASSERT_EQ(0, write_sysctl(NETNS_CLONE_SYSCTL, 1));
	EXPECT_EQ(0, in_child(_metadata, NOSUID_USER, unshare_netns, NULL));
	EXPECT_EQ(0, in_child(_metadata, NOSUID_USER, clone3_netns, NULL));

	ASSERT_EQ(0, write_sysctl(NETNS_CLONE_SYSCTL, 0));
	EXPECT_EQ(0, read_sysctl(NETNS_CLONE_SYSCTL));
	EXPECT_EQ(EPERM, in_child(_metadata, NOSUID_USER, unshare_netns,
				  NULL));
	EXPECT_EQ(EPERM, in_child(_metadata, NOSUID_USER, clone3_netns,
				  NULL));
	/* Control: only the unprivileged way is switched off. */
	EXPECT_EQ(0, in_child(_metadata, ROOT, unshare_netns, NULL));

	ASSERT_EQ(0, write_sysctl(NETNS_CLONE_SYSCTL, 1));
	EXPECT_EQ(0, in_child(_metadata, NOSUID_USER, unshare_netns, NULL));
}

TEST_F(knobs, clone_sysctl_0_keeps_userns_rules)
{
	REQUIRE_NOSUID();
	REQUIRE_NOSUID_NETNS();
	if (in_child(_metadata, NOSUID_USER, unshare_userns, NULL))
		SKIP(return, "no unprivileged user namespaces");
	ASSERT_EQ(0, write_sysctl(NETNS_CLONE_SYSCTL, 0));
	/* Control: the switch is off. */
	EXPECT_EQ(EPERM, in_child(_metadata, NOSUID_USER, unshare_netns,
				  NULL));
	EXPECT_EQ(0, in_child(_metadata, NOSUID_USER, unshare_user_netns,
			      NULL));
}

static int write_clone_sysctl_0(void *arg)
{
	return write_sysctl(NETNS_CLONE_SYSCTL, 0);
}

/* Root whose effective set lacks CAP_SYS_ADMIN: the file mode lets it in. */
static int write_clone_sysctl_0_without_sys_admin(void *arg)
{
	int err = drop_effective_cap(CAP_SYS_ADMIN);

	return err ? -err : write_clone_sysctl_0(arg);
}

TEST_F(knobs, clone_sysctl_write_needs_cap_sys_admin)
{
	int err;

	REQUIRE_NOSUID();
	REQUIRE_NOSUID_NETNS();
	ASSERT_EQ(0, write_sysctl(NETNS_CLONE_SYSCTL, 1));
	err = in_child(_metadata, USER, write_clone_sysctl_0, NULL);
	EXPECT_TRUE(err == EACCES || err == EPERM)
		TH_LOG("uid 1000: %d", err);
	err = in_child(_metadata, NOSUID_USER, write_clone_sysctl_0, NULL);
	EXPECT_TRUE(err == EACCES || err == EPERM)
		TH_LOG("nosuid uid 1000: %d", err);
	EXPECT_EQ(EPERM, in_child(_metadata, ROOT,
				  write_clone_sysctl_0_without_sys_admin,
				  NULL));
	EXPECT_EQ(1, read_sysctl(NETNS_CLONE_SYSCTL));

	/* Control: with CAP_SYS_ADMIN. */
	EXPECT_EQ(0, in_child(_metadata, ROOT, write_clone_sysctl_0, NULL));
	EXPECT_EQ(0, read_sysctl(NETNS_CLONE_SYSCTL));
}

#define NETNS_LIMIT 3

/*
 * Forks a nosuid task that unshares a netns and keeps it until @release
 * is closed.  Returns 0 or the errno of unshare(); *pid is the holder.
 */
static int start_holder(struct __test_metadata *const _metadata,
			const int release[2], pid_t *pid)
{
	int ready[2], err = EPROTO;
	char c;

	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	*pid = fork();
	ASSERT_LE(0, *pid);
	if (*pid == 0) {
		close(release[1]);
		close(ready[0]);
		drop_to_user(_metadata, true);
		err = unshare(CLONE_NEWNET) ? errno : 0;
		ASSERT_EQ(sizeof(err), write(ready[1], &err, sizeof(err)));
		if (!err)
			ASSERT_EQ(0, read(release[0], &c, 1));
		_exit(0);
	}
	close(ready[1]);
	if (read(ready[0], &err, sizeof(err)) != sizeof(err))
		err = EPROTO;
	close(ready[0]);
	if (err)
		waitpid(*pid, NULL, 0);
	return err;
}

TEST_F(knobs, max_net_namespaces_applies)
{
	pid_t holders[NETNS_LIMIT];
	int release[2], err, i;
	double deadline;

	REQUIRE_NOSUID();
	REQUIRE_NOSUID_NETNS();
	/*
	 * The limit is per user: take one that no other suite uses, whose
	 * namespaces (a TCP connection closing in one keeps it for a minute
	 * under TCG) might still be counted.
	 */
	test_uid = USER_ID + 3;
	ASSERT_EQ(0, pipe2(release, O_CLOEXEC));
	ASSERT_EQ(0, write_sysctl(MAX_NETNS_SYSCTL, NETNS_LIMIT));

	/*
	 * Namespaces of earlier tests stay charged until cleanup_net() has
	 * run on its workqueue: wait for their charge to come back (seconds
	 * under TCG, with rcu_barrier() and the XFRM pernet exits).
	 */
	deadline = now() + 20;
	for (i = 0; i < NETNS_LIMIT; i++) {
		while ((err = start_holder(_metadata, release,
					   &holders[i])) == ENOSPC &&
		       now() < deadline)
			usleep(20000);
		ASSERT_EQ(0, err)
			TH_LOG("namespace %d of %d", i + 1, NETNS_LIMIT);
	}
	/* Held: the next one is over the limit, whichever way it comes. */
	EXPECT_EQ(ENOSPC, in_child(_metadata, NOSUID_USER, unshare_netns,
				   NULL));
	EXPECT_EQ(ENOSPC, in_child(_metadata, NOSUID_USER, clone3_netns,
				   NULL));

	/* Released: the charge comes back once cleanup_net() has run. */
	close(release[1]);
	for (i = 0; i < NETNS_LIMIT; i++)
		EXPECT_EQ(0, wait_status(holders[i]));
	deadline = now() + 20;
	while ((err = in_child(_metadata, NOSUID_USER, unshare_netns,
			       NULL)) == ENOSPC && now() < deadline)
		usleep(20000);
	EXPECT_EQ(0, err);
}

TEST(network_off_task_may_unshare)
{
	const ino_t outer = netns_ino();
	int fd;

	REQUIRE_NOSUID();
	drop_to_user(_metadata, true);
	/* Control: sockets work before the gate. */
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, fd);
	close(fd);
	if (prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0)) {
		ASSERT_EQ(EINVAL, errno);
		SKIP(return, "kernel lacks PR_SET_NETWORK");
	}
	EXPECT_EQ(-1, socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
	EXPECT_EQ(EPERM, errno);

	REQUIRE_NOSUID_NETNS();
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	ASSERT_NE(outer, netns_ino());
	/* A new netns is no way out of the network-off state. */
	EXPECT_EQ(PR_NETWORK_OFF, prctl(PR_GET_NETWORK, 0, 0, 0, 0));
	EXPECT_EQ(-1, socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
			     NETLINK_ROUTE));
	EXPECT_EQ(EPERM, errno);
	/* Control: what network-off leaves allowed still is. */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	EXPECT_LE(0, fd);
	close(fd);

	/* And so it shows from outside. */
	EXPECT_EQ(1, status_field("NoNetwork"));
}

/*
 * Runs @argv as @who and returns its exit status; its standard output and
 * error go to @out.
 */
static int run(struct __test_metadata *const _metadata, enum who who,
	       char *const argv[], char *out, size_t size)
{
	int pipefd[2], status;
	ssize_t n, len = 0;
	pid_t pid;

	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (who != ROOT)
			drop_to_user(_metadata, who == NOSUID_USER);
		if (dup2(pipefd[1], STDOUT_FILENO) < 0 ||
		    dup2(pipefd[1], STDERR_FILENO) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	while (len < (ssize_t)size - 1 &&
	       (n = read(pipefd[0], out + len, size - 1 - len)) > 0)
		len += n;
	out[len] = '\0';
	close(pipefd[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	return WEXITSTATUS(status);
}

#define SHOW_NETNS "readlink /proc/self/ns/net"

TEST(busybox_unshare_n)
{
	char helper[PATH_MAX], self[PATH_MAX], outer[64], out[256];
	char *const plain[] = { "unshare", "-n", "sh", "-c", SHOW_NETNS,
				NULL };
	char *const same[] = { helper, "sh", "-c", SHOW_NETNS, NULL };
	char *const netns[] = { helper, "unshare", "-n", "sh", "-c",
				SHOW_NETNS, NULL };
	ssize_t n;

	REQUIRE_NOSUID();
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ASSERT_LT(0, n);
	self[n] = '\0';
	snprintf(helper, sizeof(helper), "%s/nosuid_exec", dirname(self));
	n = readlink("/proc/self/ns/net", outer, sizeof(outer) - 2);
	ASSERT_LT(0, n);
	outer[n++] = '\n';
	outer[n] = '\0';

	/* Controls: the helper alone changes nothing, unshare alone fails. */
	EXPECT_EQ(0, run(_metadata, USER, same, out, sizeof(out)));
	EXPECT_STREQ(outer, out);
	EXPECT_NE(0, run(_metadata, USER, plain, out, sizeof(out)));
	EXPECT_EQ(NULL, strstr(out, "net:["))
		TH_LOG("unshare -n: %s", out);

	REQUIRE_NOSUID_NETNS();
	EXPECT_EQ(0, run(_metadata, USER, netns, out, sizeof(out)))
		TH_LOG("nosuid_exec unshare -n: %s", out);
	EXPECT_EQ(0, strncmp("net:[", out, 5));
	EXPECT_STRNE(outer, out);
}

TEST_HARNESS_MAIN
