// SPDX-License-Identifier: GPL-2.0
/*
 * The gate under load: threads hammering the network around the moment
 * it closes, a chain of execs, a storm of forks.
 *
 * threads_during_gate: eight threads make sockets and send datagrams to an
 *     address; they are joined, the gate is closed (no spurious EBUSY: the
 *     process is alone again), and eight new threads do the same: every
 *     socket() and every send with an address is EPERM from then on, while
 *     send() on a socket connected before the gate still works.
 * inherit.*.exec_chain: a nosuid (and, for the gated variant, gated)
 *     process forks and execs itself 50 deep; every level checks the flags
 *     (prctl and /proc/self/status) and what socket() does.
 * inherit.*.fork_storm: 200 children of such a process, 20 alive at a
 *     time, check the same.
 *
 * The open variant is the control: the same process without the gate,
 * where socket(AF_INET) works at every level.
 *
 * Not covered here: the gate closed by a thread other than the main one
 * while the main thread is a zombie (EBUSY, prctl_test's
 * zombie_leader_busy).
 */

#define _GNU_SOURCE
#include <pthread.h>
#include <sys/uio.h>
#include <time.h>

#include "common.h"

#define THREADS 8
#define CONTROL_S 1.0
#define GATED_S 2.0

/* Levels of the exec chain after the test process. */
#define CHAIN_DEPTH 50
/* argv[1] of a chain level: the test binary runs a level, not the tests. */
#define CHAIN_ARG "--stress-exec-chain"

#define FORKS 200
#define FORK_BATCH 20

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What the workers count. */
struct counts {
	long sock_ok, sock_eperm, sock_other;
	long to_ok, to_eperm, to_other;		/* sendto/sendmsg with address */
	long send_ok, send_other;		/* send() on the connected socket */
	int other_err;				/* the first unexpected errno */
};

struct worker {
	pthread_t thread;
	const struct addr *to;
	int unconnected;
	int connected;
	const int *stop;
	struct counts c;
};

static void note(struct counts *c, long *counter, int err)
{
	(*counter)++;
	if (!c->other_err)
		c->other_err = err;
}

static void count_to(struct counts *c, int ret)
{
	if (ret == 4)
		c->to_ok++;
	else if (ret == -EPERM)
		c->to_eperm++;
	else
		note(c, &c->to_other, -ret);
}

static void *hammer(void *arg)
{
	struct worker *w = arg;
	struct counts *c = &w->c;
	int fd, ret;

	while (!__atomic_load_n(w->stop, __ATOMIC_ACQUIRE)) {
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd >= 0) {
			c->sock_ok++;
			close(fd);
		} else if (errno == EPERM) {
			c->sock_eperm++;
		} else {
			note(c, &c->sock_other, errno);
		}
		count_to(c, ping_to(w->unconnected, 0, w->to));
		count_to(c, ping_msg_to(w->unconnected, 0, w->to));
		/* No address: allowed behind the gate too. */
		ret = ping_to(w->connected, 0, NULL);
		if (ret == 4)
			c->send_ok++;
		else
			note(c, &c->send_other, -ret);
	}
	return NULL;
}

/*
 * Runs THREADS workers for @seconds, joins them and adds up what they
 * counted; *@least is the fewest loop rounds one thread made (each must
 * have run).  Returns 0 or the errno of pthread_create().
 */
static int run_workers(const struct addr *to, int unconnected, int connected,
		       double seconds, struct counts *sum, long *least)
{
	struct worker w[THREADS] = {};
	int stop = 0, i, err = 0, started;
	const double end = now() + seconds;

	memset(sum, 0, sizeof(*sum));
	for (started = 0; started < THREADS; started++) {
		w[started].to = to;
		w[started].unconnected = unconnected;
		w[started].connected = connected;
		w[started].stop = &stop;
		err = pthread_create(&w[started].thread, NULL, hammer,
				     &w[started]);
		if (err)
			break;
	}
	while (now() < end)
		usleep(10 * 1000);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	*least = -1;
	for (i = 0; i < started; i++) {
		struct counts *c = &w[i].c;
		long rounds = c->send_ok + c->send_other;

		pthread_join(w[i].thread, NULL);
		sum->sock_ok += c->sock_ok;
		sum->sock_eperm += c->sock_eperm;
		sum->sock_other += c->sock_other;
		sum->to_ok += c->to_ok;
		sum->to_eperm += c->to_eperm;
		sum->to_other += c->to_other;
		sum->send_ok += c->send_ok;
		sum->send_other += c->send_other;
		if (!sum->other_err)
			sum->other_err = c->other_err;
		if (*least < 0 || rounds < *least)
			*least = rounds;
	}
	return err;
}

/* Datagrams waiting on @fd, which are then gone. */
static long drain(int fd)
{
	char buf[16];
	long n = 0;

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		n++;
	return n;
}

/*
 * A gate closed between two sets of threads: before, everything works
 * (the control); after the join, PR_SET_NETWORK succeeds at once and the
 * new threads get EPERM for every new socket and every address, not one
 * slips through, while the socket connected before keeps sending.
 */
TEST(threads_during_gate)
{
	struct addr a = loopback(AF_INET), to;
	int rcv, unconnected, connected;
	struct counts c;
	long least, got;

	REQUIRE_NETWORK_PRCTL();
	become_user(_metadata);

	rcv = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, rcv);
	ASSERT_EQ(0, bind_to(rcv, &a));
	to = local_addr(rcv);
	ASSERT_LT(0, to.len);
	unconnected = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	connected = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, unconnected);
	ASSERT_LE(0, connected);
	ASSERT_EQ(0, connect_to(connected, &to));
	/* A full send buffer must fail the test, not hang it. */
	set_timeout(unconnected);
	set_timeout(connected);

	/* Control: the same threads and calls with the gate open. */
	ASSERT_EQ(0, run_workers(&to, unconnected, connected, CONTROL_S, &c,
				 &least));
	got = drain(rcv);
	TH_LOG("open: %d threads, %.1f s: %ld sockets (%ld EPERM, %ld other), %ld sends with address (%ld EPERM, %ld other), %ld connected sends (%ld failed), fewest rounds of a thread %ld, %ld datagrams queued",
	       THREADS, CONTROL_S, c.sock_ok, c.sock_eperm, c.sock_other,
	       c.to_ok, c.to_eperm, c.to_other, c.send_ok, c.send_other,
	       least, got);
	EXPECT_LT(0, least);
	EXPECT_LT(0, c.sock_ok);
	EXPECT_EQ(0, c.sock_eperm);
	EXPECT_LT(0, c.to_ok);
	EXPECT_EQ(0, c.to_eperm);
	EXPECT_LT(0, c.send_ok);
	EXPECT_EQ(0, c.sock_other + c.to_other + c.send_other)
	{
		TH_LOG("first unexpected error: %s", strerror(c.other_err));
	}
	EXPECT_LT(0, got);

	/* All joined: alone again, the gate closes at the first try. */
	ASSERT_EQ(0, prctl(PR_SET_NETWORK, PR_NETWORK_OFF, 0, 0, 0))
	{
		TH_LOG("PR_SET_NETWORK after joining %d threads: %s", THREADS,
		       strerror(errno));
	}
	ASSERT_EQ(PR_NETWORK_OFF, prctl(PR_GET_NETWORK, 0, 0, 0, 0));

	ASSERT_EQ(0, run_workers(&to, unconnected, connected, GATED_S, &c,
				 &least));
	got = drain(rcv);
	TH_LOG("gated: %d threads, %.1f s: %ld sockets refused (%ld made, %ld other), %ld sends with address refused (%ld sent, %ld other), %ld connected sends (%ld failed), fewest rounds of a thread %ld, %ld datagrams queued",
	       THREADS, GATED_S, c.sock_eperm, c.sock_ok, c.sock_other,
	       c.to_eperm, c.to_ok, c.to_other, c.send_ok, c.send_other,
	       least, got);
	EXPECT_LT(0, least);
	EXPECT_EQ(0, c.sock_ok);
	EXPECT_LT(0, c.sock_eperm);
	EXPECT_EQ(0, c.to_ok);
	EXPECT_LT(0, c.to_eperm);
	/* The control behind the gate: the kept, connected socket works. */
	EXPECT_LT(0, c.send_ok);
	EXPECT_EQ(0, c.sock_other + c.to_other + c.send_other)
	{
		TH_LOG("first unexpected error: %s", strerror(c.other_err));
	}
	EXPECT_LT(0, got);

	close(connected);
	close(unconnected);
	close(rcv);
}

/* What a task of the chain or of the storm checks about itself. */
enum check {
	CHK_OK,
	CHK_UID,
	CHK_NOSUID,
	CHK_NETWORK,
	CHK_NNP,
	CHK_STATUS_NOSUID,
	CHK_STATUS_NONET,
	CHK_INET,
	CHK_UNIX,
	CHK_EXEC,
	CHK_COUNT,
};

static const char *const check_name[CHK_COUNT] = {
	[CHK_OK] = "ok",
	[CHK_UID] = "uid/euid 1000",
	[CHK_NOSUID] = "PR_GET_NOSUID",
	[CHK_NETWORK] = "PR_GET_NETWORK",
	[CHK_NNP] = "PR_GET_NO_NEW_PRIVS",
	[CHK_STATUS_NOSUID] = "NoSUID: in /proc/self/status",
	[CHK_STATUS_NONET] = "NoNetwork: in /proc/self/status",
	[CHK_INET] = "socket(AF_INET)",
	[CHK_UNIX] = "socket(AF_UNIX)",
	[CHK_EXEC] = "execve(/proc/self/exe)",
};

static const char *name_of(int check)
{
	return check >= 0 && check < CHK_COUNT ? check_name[check] :
						  "killed or unknown";
}

/* The number after "@name:" in /proc/self/status, or -1. */
static int status_field(const char *name)
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

/*
 * The invariants of a nosuid task, gated or not; returns CHK_OK or the
 * first that failed, with the value or errno seen in *@seen.
 */
static int check_invariants(bool gated, int *seen)
{
	int fd;

	*seen = 0;
	if (getuid() != USER_ID || geteuid() != USER_ID) {
		*seen = geteuid();
		return CHK_UID;
	}
	*seen = prctl(PR_GET_NOSUID, 0, 0, 0, 0);
	if (*seen != 1)
		return CHK_NOSUID;
	*seen = prctl(PR_GET_NETWORK, 0, 0, 0, 0);
	if (*seen != (gated ? PR_NETWORK_OFF : 0))
		return CHK_NETWORK;
	*seen = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	if (*seen != 1)
		return CHK_NNP;
	*seen = status_field("NoSUID");
	if (*seen != 1)
		return CHK_STATUS_NOSUID;
	*seen = status_field("NoNetwork");
	if (*seen != gated)
		return CHK_STATUS_NONET;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	*seen = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	if (gated ? !(fd < 0 && *seen == EPERM) : fd < 0)
		return CHK_INET;
	/* Local sockets stay: the EPERM above is the gate, nothing else. */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	*seen = fd < 0 ? errno : 0;
	if (fd < 0)
		return CHK_UNIX;
	close(fd);
	*seen = 0;
	return CHK_OK;
}

/* One level's report to the test, through a pipe kept across exec. */
struct verdict {
	int level;
	int check;
	int seen;
};

/*
 * Fork, exec level @level of the chain, wait for it: its exit status is
 * 0 if it and every level below it passed, else the check that failed.
 */
static int chain_next(int level, int depth, bool gated, int report)
{
	char arg_level[16], arg_depth[16], arg_gated[4], arg_report[16];
	char *const argv[] = { "/proc/self/exe", CHAIN_ARG, arg_level,
			       arg_depth, arg_gated, arg_report, NULL };
	int status;
	pid_t pid;

	snprintf(arg_level, sizeof(arg_level), "%d", level);
	snprintf(arg_depth, sizeof(arg_depth), "%d", depth);
	snprintf(arg_gated, sizeof(arg_gated), "%d", gated);
	snprintf(arg_report, sizeof(arg_report), "%d", report);
	pid = fork();
	if (pid < 0)
		return CHK_EXEC;
	if (pid == 0) {
		struct verdict v = { .level = level, .check = CHK_EXEC };

		execve(argv[0], argv, NULL);
		v.seen = errno;
		if (write(report, &v, sizeof(v)) != sizeof(v))
			_exit(CHK_EXEC);
		_exit(CHK_EXEC);
	}
	if (waitpid(pid, &status, 0) != pid)
		return CHK_EXEC;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* main() of a level of the chain: argv as built by chain_next(). */
static int chain_level(char **argv)
{
	const int level = atoi(argv[2]), depth = atoi(argv[3]);
	const bool gated = atoi(argv[4]);
	const int report = atoi(argv[5]);
	struct verdict v = { .level = level };

	v.check = check_invariants(gated, &v.seen);
	if (write(report, &v, sizeof(v)) != sizeof(v))
		return CHK_EXEC;
	if (v.check)
		return v.check;
	if (level == depth)
		return CHK_OK;
	return chain_next(level + 1, depth, gated, report);
}

FIXTURE(inherit) {};

FIXTURE_VARIANT(inherit)
{
	bool gated;
};

FIXTURE_VARIANT_ADD(inherit, gated)
{
	.gated = true,
};

/* The control: nosuid without the gate. */
FIXTURE_VARIANT_ADD(inherit, open)
{
	.gated = false,
};

FIXTURE_SETUP(inherit)
{
	REQUIRE_NETWORK_PRCTL();
	become_user(_metadata);
	if (variant->gated)
		CLOSE_GATE();
}

FIXTURE_TEARDOWN(inherit)
{
}

TEST_F(inherit, exec_chain)
{
	struct verdict v;
	int pipefd[2], code, seen, reports = 0, failed = 0, next = 1;
	bool in_order = true;
	double start;

	/* Level 0, the test process itself. */
	code = check_invariants(variant->gated, &seen);
	ASSERT_EQ(CHK_OK, code)
	{
		TH_LOG("test process: %s, saw %d", name_of(code), seen);
	}

	/* The write end goes down the chain, the read end stays here. */
	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	ASSERT_EQ(0, fcntl(pipefd[1], F_SETFD, 0));
	start = now();
	code = chain_next(1, CHAIN_DEPTH, variant->gated, pipefd[1]);
	close(pipefd[1]);
	while (read(pipefd[0], &v, sizeof(v)) == sizeof(v)) {
		reports++;
		if (v.level != next++)
			in_order = false;
		if (v.check && failed++ < 5)
			TH_LOG("level %d: %s, saw %d", v.level,
			       name_of(v.check), v.seen);
	}
	close(pipefd[0]);
	TH_LOG("%s: %d levels of fork and exec in %.3f s, chain exit status %d (%s)",
	       variant->gated ? "gated" : "open", reports, now() - start,
	       code, name_of(code));
	EXPECT_EQ(CHK_OK, code);
	EXPECT_EQ(CHAIN_DEPTH, reports);
	EXPECT_EQ(0, failed);
	EXPECT_TRUE(in_order);
}

TEST_F(inherit, fork_storm)
{
	int i, j, status, forks = 0, failed = 0, fork_err = 0;
	int by_check[CHK_COUNT + 1] = {};
	pid_t pid[FORK_BATCH];
	double start = now();

	for (i = 0; i < FORKS / FORK_BATCH; i++) {
		/* FORK_BATCH children alive at once, checking in parallel. */
		for (j = 0; j < FORK_BATCH; j++) {
			pid[j] = fork();
			if (pid[j] == 0) {
				int seen;

				_exit(check_invariants(variant->gated, &seen));
			}
			if (pid[j] < 0)
				fork_err = errno;
			else
				forks++;
		}
		for (j = 0; j < FORK_BATCH; j++) {
			int code;

			if (pid[j] < 0 || waitpid(pid[j], &status, 0) != pid[j])
				continue;
			code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
			if (code == CHK_OK)
				continue;
			failed++;
			by_check[code > 0 && code < CHK_COUNT ? code :
								CHK_COUNT]++;
		}
	}
	TH_LOG("%s: %d children (%d at a time) in %.3f s, %d failed",
	       variant->gated ? "gated" : "open", forks, FORK_BATCH,
	       now() - start, failed);
	for (i = 1; i <= CHK_COUNT; i++)
		if (by_check[i])
			TH_LOG("  %d failed: %s", by_check[i], name_of(i));
	EXPECT_EQ(FORKS, forks)
	{
		TH_LOG("fork: %s", strerror(fork_err));
	}
	EXPECT_EQ(0, failed);
}

/* The test binary is also each level of the exec chain. */
int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], CHAIN_ARG))
		return chain_level(argv);
	return test_harness_run(argc, argv);
}
