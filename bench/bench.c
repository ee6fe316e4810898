// SPDX-License-Identifier: GPL-2.0
/*
 * bench [SCALE]: what the series costs, and what the alternatives cost, in
 * one boot.  Run as root in the guest (make bench boots it); prints
 *
 *   R <state> <operation> <status> <min> <median> <samples>
 *
 * where min and median are over per-call samples, in guest nanoseconds.
 * Under QEMU "-icount shift=0,sleep=off" a guest nanosecond is one executed
 * instruction, so the figures are instruction counts.  The boot has one
 * CPU: with two, the instructions of the other CPU (a kworker freeing a
 * namespace) would be counted into the call that happened to be timed.
 *
 * States, each in a child that dropped to uid 1000 without capabilities:
 *   open        nobody on the machine closed a gate (static key off)
 *   open-keyon  another process closed its gate (static key on)
 *   gated       this task is nosuid and behind its gate
 *   seccomp     a filter refusing socket() but AF_UNIX (systemd's
 *               RestrictAddressFamilies=AF_UNIX)
 *   landlock    a ruleset refusing TCP bind and connect, and on 7.3 (whose
 *               headers have them) UDP bind and connect/send as well
 * and "setup": the one-time costs (prctls, filter, ruleset, namespaces).
 * On a kernel without the series, the states that need it are left out.
 *
 * bench storm: what a namespace storm of one nosuid user costs root,
 * beyond sharing the CPUs.  Root makes and drops a network namespace in a
 * loop (fork, unshare, exit, wait) three times: alone; beside STORMERS
 * processes of uid 1000 at nice 19 that only spin; and beside as many
 * nosuid processes of uid 1000 at nice 19 that fill their namespace
 * allowance and then release and make namespaces without end (the
 * selftest's storm).  Prints "R storm <load> root_netns_cycle ..." lines;
 * the ratio storm/spin is the storm's cost beyond CPU sharing.  This boot
 * has two CPUs, as the selftest's: teardown on the other CPU is part of
 * what is measured here.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/prctl.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define USER_ID 1000
#define UNIX_PATH "/tmp/bench.sock"

static int scale = 1;

static long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long xprctl(long op, long a2, long a3)
{
	return syscall(SYS_prctl, op, a2, a3, 0, 0);
}

static void die(const char *what)
{
	fprintf(stderr, "bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* Print min and median of @n samples (the first tenth was warm-up). */
static void report(const char *state, const char *op, int err,
		   long long *s, int n)
{
	qsort(s, n, sizeof(*s), cmp_ll);
	printf("R %s %s %s %lld %lld %d\n", state, op,
	       err ? strerrorname_np(err) : "ok", s[0], s[n / 2], n);
	fflush(stdout);
}

/* ---- fixtures made before the state is entered: kept sockets ---- */

static struct sockaddr_in udp_rx_addr, tcp_addr;
static int udp_rx, udp_conn, udp_any, udp_spare, tcp_listener, tcp_client;
static int unix_listener;

/*
 * Fixed ports, the same in every state and boot: the hash buckets a
 * connection lands in, and so the lookups it makes, depend on its ports.
 */
static struct sockaddr_in loopback(int fd, int type, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1;

	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)))
		die("bind loopback");
	if (type == SOCK_STREAM && listen(fd, 64))
		die("listen");
	return sin;
}

/*
 * The client is bound too: connect() would otherwise search for an
 * ephemeral port from a random offset, trying a number of ports that
 * depends on the boot's random state, which differs between two kernels.
 */
static int new_tcp_client(void)
{
	struct linger nolinger = { .l_onoff = 1, .l_linger = 0 };
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(40000),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	/* Reset on close: no TIME_WAIT sockets piling up between samples. */
	if (fd >= 0 &&
	    (setsockopt(fd, SOL_SOCKET, SO_LINGER, &nolinger, sizeof(nolinger)) ||
	     setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	     bind(fd, (struct sockaddr *)&sin, sizeof(sin))))
		die("tcp client");
	return fd;
}

static void make_fixtures(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX, .sun_path = UNIX_PATH };
	int big = 1 << 22;

	udp_rx = socket(AF_INET, SOCK_DGRAM, 0);
	udp_rx_addr = loopback(udp_rx, SOCK_DGRAM, 40002);
	setsockopt(udp_rx, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	udp_conn = socket(AF_INET, SOCK_DGRAM, 0);
	if (connect(udp_conn, (struct sockaddr *)&udp_rx_addr,
		    sizeof(udp_rx_addr)))
		die("connect udp");
	udp_any = socket(AF_INET, SOCK_DGRAM, 0);
	udp_spare = socket(AF_INET, SOCK_DGRAM, 0);
	tcp_listener = socket(AF_INET, SOCK_STREAM, 0);
	tcp_addr = loopback(tcp_listener, SOCK_STREAM, 40001);
	tcp_client = new_tcp_client();
	unlink(UNIX_PATH);
	unix_listener = socket(AF_UNIX, SOCK_STREAM, 0);
	/* Made by root, connected to by uid 1000: writable for all. */
	if (bind(unix_listener, (struct sockaddr *)&sun, sizeof(sun)) ||
	    chmod(UNIX_PATH, 0777) || listen(unix_listener, 64))
		die("unix listener");
	if (udp_rx < 0 || udp_conn < 0 || udp_any < 0 || udp_spare < 0 ||
	    tcp_client < 0)
		die("fixtures");
}

static void drain_udp(void)
{
	char buf[16];

	while (recv(udp_rx, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/* ---- the operations: each returns its time, *err the errno or 0 ---- */

#define TIMED(call) ({ long long _t = now(); call; now() - _t; })

/* Time @call; a failure comes back as -errno. */
#define TIMED_CALL(call) ({ long long _t = now(); long _r = (call); \
			    _t = now() - _t; _r < 0 ? -(long long)errno : _t; })

static long long op_getpid(int *err)
{
	return TIMED(syscall(SYS_getpid));
}

static long long op_prctl_other(int *err)
{
	return TIMED(xprctl(PR_GET_DUMPABLE, 0, 0));
}

static long long sock_close(int family, int *err)
{
	long long t = now();
	int fd = socket(family, SOCK_STREAM, 0);

	*err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	return now() - t;
}

static long long op_socket_inet(int *err)
{
	return sock_close(AF_INET, err);
}

static long long op_socket_unix(int *err)
{
	return sock_close(AF_UNIX, err);
}

static char byte;

static long long op_udp_send(int *err)
{
	long long t;
	int r;

	t = TIMED(r = send(udp_conn, &byte, 1, 0));
	*err = r < 0 ? errno : 0;
	drain_udp();
	return t;
}

static long long op_udp_sendto(int *err)
{
	long long t;
	int r;

	t = TIMED(r = sendto(udp_any, &byte, 1, 0,
			     (struct sockaddr *)&udp_rx_addr,
			     sizeof(udp_rx_addr)));
	*err = r < 0 ? errno : 0;
	drain_udp();
	return t;
}

static long long op_udp_connect(int *err)
{
	long long t;
	int r;

	t = TIMED(r = connect(udp_spare, (struct sockaddr *)&udp_rx_addr,
			      sizeof(udp_rx_addr)));
	*err = r < 0 ? errno : 0;
	return t;
}

/*
 * connect + accept + close of both ends.  The client socket is made
 * beforehand (untimed), and only after a successful connect: a refused
 * connect leaves it as it was, which is what a gated task's kept socket
 * would see.
 */
static long long op_tcp_connect_accept_close(int *err)
{
	long long t = now();
	int r, fd;

	/* Where socket() is refused (seccomp), that is what the call costs. */
	if (tcp_client < 0) {
		tcp_client = new_tcp_client();
		*err = tcp_client < 0 ? errno : 0;
		return now() - t;
	}
	r = connect(tcp_client, (struct sockaddr *)&tcp_addr, sizeof(tcp_addr));
	*err = r < 0 ? errno : 0;
	if (r == 0) {
		fd = accept(tcp_listener, NULL, NULL);
		close(fd);
		close(tcp_client);
	}
	t = now() - t;
	if (r == 0)
		tcp_client = new_tcp_client();
	return t;
}

/* The same, connect() alone timed. */
static long long op_tcp_connect(int *err)
{
	long long t;
	int r;

	if (tcp_client < 0)
		return op_tcp_connect_accept_close(err);
	t = TIMED(r = connect(tcp_client, (struct sockaddr *)&tcp_addr,
			      sizeof(tcp_addr)));
	*err = r < 0 ? errno : 0;
	if (r == 0) {
		close(accept(tcp_listener, NULL, NULL));
		close(tcp_client);
		tcp_client = new_tcp_client();
	}
	return t;
}

static long long op_unix_connect(int *err)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX, .sun_path = UNIX_PATH };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	long long t;
	int r;

	t = TIMED(r = connect(fd, (struct sockaddr *)&sun, sizeof(sun)));
	*err = r < 0 ? errno : 0;
	close(fd);
	if (r == 0)
		close(accept(unix_listener, NULL, NULL));
	return t;
}

static long long op_fork_exit_wait(int *err)
{
	long long t = now();
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return now() - t;
}

static long long op_fork_exec_wait(int *err)
{
	long long t = now();
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		execl("/proc/self/exe", "bench", "exit", NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	*err = status ? ENOEXEC : 0;
	return now() - t;
}

static const struct op {
	const char *name;
	long long (*run)(int *err);
	int samples;
} ops[] = {
	{ "getpid", op_getpid, 2000 },
	{ "prctl_not_ours", op_prctl_other, 2000 },
	{ "socket_inet_close", op_socket_inet, 2000 },
	{ "socket_unix_close", op_socket_unix, 2000 },
	{ "tcp_connect_accept_close", op_tcp_connect_accept_close, 400 },
	{ "tcp_connect", op_tcp_connect, 400 },
	{ "udp_send", op_udp_send, 2000 },
	{ "udp_sendto", op_udp_sendto, 2000 },
	{ "udp_connect", op_udp_connect, 2000 },
	{ "unix_connect", op_unix_connect, 1000 },
	{ "fork_exit_wait", op_fork_exit_wait, 200 },
	{ "fork_exec_wait", op_fork_exec_wait, 100 },
};

static void run_ops(const char *state)
{
	static long long s[20000];

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		int n = ops[i].samples * scale, warm = n / 10, err = 0, k;

		for (k = 0; k < warm; k++)
			ops[i].run(&err);
		for (k = 0; k < n; k++)
			s[k] = ops[i].run(&err);
		report(state, ops[i].name, err, s, n);
	}
}

/* ---- states ---- */

static void drop_to_user(void)
{
	gid_t g = USER_ID;

	if (setgroups(1, &g) || setresgid(USER_ID, USER_ID, USER_ID) ||
	    setresuid(USER_ID, USER_ID, USER_ID))
		die("drop to uid 1000");
}

static int have_series(void)
{
	return xprctl(PR_GET_NOSUID, 0, 0) >= 0;
}

static void close_gate(void)
{
	if (xprctl(PR_SET_NOSUID, 1, 0) ||
	    xprctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0))
		die("PR_SET_NOSUID + PR_SET_NETWORK");
}

/* systemd's RestrictAddressFamilies=AF_UNIX, reduced to its core. */
static void install_seccomp(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EAFNOSUPPORT),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		die("seccomp");
}

/*
 * The network rights Landlock can handle on the kernel bench.c was built
 * for: TCP bind and connect (ABI 4), and UDP bind and connect/send where the
 * headers have them (7.3).  Handled with no rule: every such call refused.
 * Landlock still has no right on socket creation, so socket() stays allowed.
 */
static int landlock_net_ruleset(void)
{
	struct landlock_ruleset_attr attr = {
		.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP |
				      LANDLOCK_ACCESS_NET_CONNECT_TCP
#ifdef LANDLOCK_ACCESS_NET_BIND_UDP
				      | LANDLOCK_ACCESS_NET_BIND_UDP |
				      LANDLOCK_ACCESS_NET_CONNECT_SEND_UDP
#endif
	};

	return syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
}

static void install_landlock(void)
{
	int fd = landlock_net_ruleset();

	if (fd < 0 || syscall(__NR_landlock_restrict_self, fd, 0))
		die("landlock");
	close(fd);
}

/*
 * The synchronised calls (PR_NOSUID_TSYNC, PR_NETWORK_TSYNC, Landlock's
 * LANDLOCK_RESTRICT_SELF_TSYNC) with @threads threads in all, the others
 * blocked in read() as most threads of a server are.  On one CPU under
 * -icount the figure counts every thread's work: each runs its task_work.
 */
enum tsync_call { TSYNC_NOSUID, TSYNC_GATE, TSYNC_LANDLOCK };

static const char *const tsync_names[] = {
	"tsync_nosuid", "tsync_network_off", "tsync_landlock",
};

#ifndef LANDLOCK_RESTRICT_SELF_TSYNC
#define LANDLOCK_RESTRICT_SELF_TSYNC (1U << 3)
#endif

static void *block_in_read(void *arg)
{
	char c;

	return (void *)read((int)(long)arg, &c, 1);
}

static long long tsync_once(enum tsync_call what, int threads)
{
	pthread_t t;
	int hold[2], fd = -1;
	long long r;

	drop_to_user();
	if (what == TSYNC_GATE)
		xprctl(PR_SET_NOSUID, 1, 0);
	if (what == TSYNC_LANDLOCK) {
		xprctl(PR_SET_NO_NEW_PRIVS, 1, 0);
		fd = landlock_net_ruleset();
		if (fd < 0)
			return -errno;
	}
	if (pipe(hold))
		die("pipe");
	for (int i = 1; i < threads; i++)
		if (pthread_create(&t, NULL, block_in_read, (void *)(long)hold[0]))
			die("pthread_create");
	/* Let every thread reach its read(). */
	usleep(20000);
	switch (what) {
	case TSYNC_NOSUID:
		return TIMED_CALL(xprctl(PR_SET_NOSUID, 1, PR_NOSUID_TSYNC));
	case TSYNC_GATE:
		return TIMED_CALL(xprctl(PR_SET_NETWORK, PR_NETWORK_OFF,
					 PR_NETWORK_TSYNC));
	case TSYNC_LANDLOCK:
		r = TIMED_CALL(syscall(__NR_landlock_restrict_self, fd,
				       LANDLOCK_RESTRICT_SELF_TSYNC));
		return r;
	}
	return -EINVAL;
}

static void tsync_costs_as(enum tsync_call what, int threads, int n,
			   const char *suffix)
{
	static long long s[100];
	char name[64];
	int k, fds[2];

	snprintf(name, sizeof(name), "%s_%d_threads%s", tsync_names[what],
		 threads, suffix);
	for (k = 0; k < n; k++) {
		pid_t pid;

		if (pipe(fds))
			die("pipe");
		pid = fork();
		if (pid == 0) {
			long long t = tsync_once(what, threads);

			write(fds[1], &t, sizeof(t));
			_exit(0);
		}
		close(fds[1]);
		if (read(fds[0], &s[k], sizeof(s[k])) != sizeof(s[k]))
			die("tsync child");
		close(fds[0]);
		waitpid(pid, NULL, 0);
		if (s[k] < 0) {
			printf("R setup %s %s 0 0 0\n", name,
			       strerrorname_np(-s[k]));
			return;
		}
	}
	report("setup", name, 0, s, n);
}

static void tsync_costs(enum tsync_call what, int threads, int n)
{
	tsync_costs_as(what, threads, n, "");
}

/*
 * Another process of uid 1000 with @threads threads blocked in read(): a
 * TSYNC call must not look at it (issue 34: 188 ms beside 3,000 threads
 * against 47-66 ms alone).  Returns its pid; it ends when killed.
 */
static pid_t bystander(int threads)
{
	int ready[2], hold[2];
	pthread_t t;
	pid_t pid;
	char c;

	if (pipe(ready))
		die("pipe");
	pid = fork();
	if (pid == 0) {
		drop_to_user();
		if (pipe(hold))
			die("pipe");
		for (int i = 1; i < threads; i++)
			if (pthread_create(&t, NULL, block_in_read,
					   (void *)(long)hold[0]))
				die("pthread_create");
		write(ready[1], "r", 1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		die("bystander");
	close(ready[0]);
	return pid;
}

/* Run the operations in a child, as uid 1000, in @state. */
static void state(const char *name, void (*enter)(void))
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		make_fixtures();
		drop_to_user();
		if (enter)
			enter();
		run_ops(name);
		exit(0);
	}
	waitpid(pid, NULL, 0);
}

static void enter_seccomp(void)
{
	if (xprctl(PR_SET_NO_NEW_PRIVS, 1, 0))
		die("no_new_privs");
	install_seccomp();
}

static void enter_landlock(void)
{
	if (xprctl(PR_SET_NO_NEW_PRIVS, 1, 0))
		die("no_new_privs");
	install_landlock();
}

/* ---- one-time costs, each timed in a fresh child ---- */

enum setup { NNP, NOSUID, GATE, SECCOMP, LANDLOCK, USERNS_NETNS,
	     ROOT_NETNS, ROOT_NETNS_LO, NOSUID_NETNS };

static const char *const setup_names[] = {
	"prctl_no_new_privs", "prctl_nosuid", "prctl_network_off",
	"seccomp_filter", "landlock_ruleset", "unshare_user_net",
	"root_unshare_net", "root_unshare_net_lo_up", "nosuid_unshare_net",
};

/* What "ip link set lo up" does after unshare -n (bubblewrap does it). */
static void lo_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr))
		die("SIOCGIFFLAGS");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr))
		die("SIOCSIFFLAGS");
	close(fd);
}

static long long setup_once(enum setup what)
{
	if (what != ROOT_NETNS && what != ROOT_NETNS_LO)
		drop_to_user();
	/*
	 * A fresh child's first writes copy its stack and data pages: take
	 * those faults here, not inside the call that is timed.
	 */
	(void)TIMED_CALL(syscall(SYS_getpid));
	switch (what) {
	case NNP:
		return TIMED_CALL(xprctl(PR_SET_NO_NEW_PRIVS, 1, 0));
	case NOSUID:
		return TIMED_CALL(xprctl(PR_SET_NOSUID, 1, 0));
	case GATE:
		xprctl(PR_SET_NOSUID, 1, 0);
		return TIMED_CALL(xprctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0));
	case SECCOMP:
		xprctl(PR_SET_NO_NEW_PRIVS, 1, 0);
		return TIMED_CALL((install_seccomp(), 0));
	case LANDLOCK:
		xprctl(PR_SET_NO_NEW_PRIVS, 1, 0);
		return TIMED_CALL((install_landlock(), 0));
	case USERNS_NETNS:
		return TIMED_CALL(unshare(CLONE_NEWUSER | CLONE_NEWNET));
	case ROOT_NETNS:
		return TIMED_CALL(unshare(CLONE_NEWNET));
	case ROOT_NETNS_LO:
		return TIMED_CALL(unshare(CLONE_NEWNET) ?: (lo_up(), 0));
	case NOSUID_NETNS:
		xprctl(PR_SET_NOSUID, 1, 0);
		return TIMED_CALL(unshare(CLONE_NEWNET));
	}
	return -EINVAL;
}

static void setup_costs(enum setup what, int n)
{
	static long long s[1000];
	int k, fds[2];

	n *= scale;
	for (k = 0; k < n; k++) {
		pid_t pid;

		if (pipe(fds))
			die("pipe");
		pid = fork();
		if (pid == 0) {
			long long t;

			t = setup_once(what);
			write(fds[1], &t, sizeof(t));
			_exit(0);
		}
		close(fds[1]);
		if (read(fds[0], &s[k], sizeof(s[k])) != sizeof(s[k]))
			die("setup child");
		close(fds[0]);
		waitpid(pid, NULL, 0);
		if (s[k] < 0) {
			printf("R setup %s %s 0 0 0\n", setup_names[what],
			       strerrorname_np(-s[k]));
			return;
		}
		/* Let the kworker free the namespace before the next one. */
		if (what >= USERNS_NETNS)
			usleep(20000);
	}
	report("setup", setup_names[what], 0, s, n);
}

/* ---- the namespace storm ---- */

#define STORMERS 4
#define STORM_CYCLES 60

/* Root's cycle: fork, unshare(CLONE_NEWNET) in the child, exit, wait. */
static long long root_netns_cycle(int *err)
{
	long long t = now();
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(unshare(CLONE_NEWNET) ? errno : 0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		die("root's netns cycle");
	*err = WEXITSTATUS(status);
	return now() - t;
}

/* Spin, or churn namespaces: at nice 19 as uid 1000, until killed. */
static __attribute__((noreturn)) void load_main(int storm, int ready)
{
	int held[256], n = 0;

	drop_to_user();
	if (setpriority(PRIO_PROCESS, 0, 19))
		die("nice 19");
	if (storm && xprctl(PR_SET_NOSUID, 1, 0))
		die("PR_SET_NOSUID");
	if (!storm) {
		write(ready, "", 1);
		for (;;)
			;
	}
	/* Fill the allowance (ENOSPC), then keep releasing and making. */
	while (n < 256 && !unshare(CLONE_NEWNET))
		held[n++] = open("/proc/self/ns/net", O_RDONLY);
	write(ready, "", 1);
	for (;;) {
		if (n > 1) {
			close(held[0]);
			memmove(held, held + 1, --n * sizeof(held[0]));
		}
		if (!unshare(CLONE_NEWNET))
			held[n++] = open("/proc/self/ns/net", O_RDONLY);
	}
}

static void storm_phase(const char *load, int storm)
{
	static long long s[STORM_CYCLES];
	pid_t pids[STORMERS];
	int i, n, err = 0, fds[2];
	char c;

	for (i = 0; i < STORMERS && load; i++) {
		if (pipe(fds))
			die("pipe");
		pids[i] = fork();
		if (pids[i] == 0)
			load_main(storm, fds[1]);
		close(fds[1]);
		if (read(fds[0], &c, 1) != 1)
			die("load process");
		close(fds[0]);
	}
	for (i = 0; i < 5; i++)		/* warm-up */
		root_netns_cycle(&err);
	for (n = 0; n < STORM_CYCLES && !err; n++)
		s[n] = root_netns_cycle(&err);
	for (i = 0; i < STORMERS && load; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
	report("storm", load ? load : "alone", err, s, n);
	/* Let the namespaces of this phase go before the next one. */
	sleep(2);
}

static int bench_storm(void)
{
	if (!have_series()) {
		fprintf(stderr, "bench storm: needs the series\n");
		return 2;
	}
	printf("# bench: storm, %d processes, %d cycles\n", STORMERS,
	       STORM_CYCLES);
	storm_phase(NULL, 0);
	storm_phase("spin", 0);
	storm_phase("storm", 1);
	printf("# bench: done\n");
	return 0;
}

int main(int argc, char **argv)
{
	int series;

	if (argc > 1 && !strcmp(argv[1], "exit"))
		return 0;
	if (argc > 1 && !strcmp(argv[1], "storm"))
		return getuid() ? 2 : bench_storm();
	if (argc > 1)
		scale = atoi(argv[1]) > 0 ? atoi(argv[1]) : 1;
	if (getuid() != 0) {
		fprintf(stderr, "bench: run as root (it drops to uid %d)\n",
			USER_ID);
		return 2;
	}
	series = have_series();
	printf("# bench: series %s, scale %d\n", series ? "present" : "absent",
	       scale);
	/* uid 1000 runs 4,500 threads at once in the TSYNC rows. */
	{
		struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };

		if (setrlimit(RLIMIT_NPROC, &unlimited))
			die("setrlimit");
	}

	state("open", NULL);
	if (series) {
		/* The first gate on the machine turns the static key on. */
		long long t;
		pid_t pid = fork();

		if (pid == 0) {
			drop_to_user();
			xprctl(PR_SET_NOSUID, 1, 0);
			t = TIMED_CALL(xprctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0));
			if (t < 0)
				die("first PR_SET_NETWORK");
			printf("R setup first_gate_on_machine ok %lld %lld 1\n",
			       t, t);
			exit(0);
		}
		waitpid(pid, NULL, 0);
		state("open-keyon", NULL);
		state("gated", close_gate);
	}
	state("seccomp", enter_seccomp);
	state("landlock", enter_landlock);

	setup_costs(NNP, 100);
	if (series) {
		setup_costs(NOSUID, 100);
		setup_costs(GATE, 100);
	}
	setup_costs(SECCOMP, 100);
	setup_costs(LANDLOCK, 100);
	setup_costs(USERNS_NETNS, 20);
	setup_costs(ROOT_NETNS, 20);
	setup_costs(ROOT_NETNS_LO, 20);
	if (series)
		setup_costs(NOSUID_NETNS, 20);
	for (int i = 0; i < 3; i++) {
		static const int threads[] = { 1, 8, 64 };

		if (series) {
			tsync_costs(TSYNC_NOSUID, threads[i], 10 * scale);
			tsync_costs(TSYNC_GATE, threads[i], 10 * scale);
		}
		tsync_costs(TSYNC_LANDLOCK, threads[i], 10 * scale);
	}
	if (series) {
		pid_t other;

		tsync_costs(TSYNC_NOSUID, 1500, 3 * scale);
		other = bystander(3000);
		tsync_costs_as(TSYNC_NOSUID, 1500, 3 * scale, "_beside_3000");
		kill(other, SIGKILL);
		waitpid(other, NULL, 0);
	}
	printf("# bench: done\n");
	return 0;
}
