// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring makes the same socket calls as the system calls do, but not
 * always from the task that submitted them nor with its current
 * credentials: an io-wq worker, an SQPOLL thread, or a personality
 * registered earlier may run them.  None of these may carry a request past
 * the gate.  Raw system calls, no liburing: the guest has no libraries.
 */

#define _GNU_SOURCE
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "common.h"
#include "../nosuid/uring.h"

/* Is there a thread of ours whose name starts with prefix? */
static bool have_thread(const char *prefix)
{
	char path[300], comm[32];
	struct dirent *d;
	bool found = false;
	DIR *dir = opendir("/proc/self/task");
	FILE *f;

	while (dir && !found && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    !strncmp(comm, prefix, strlen(prefix)))
			found = true;
		fclose(f);
	}
	if (dir)
		closedir(dir);
	return found;
}

enum op {
	OP_SOCKET_INET,
	OP_SOCKET_UNIX,
	OP_CONNECT,
	OP_BIND,
	OP_LISTEN,
	OP_SENDMSG,
	OP_SENDMSG_ZC,
	OP_SEND,
	OP_SEND_ZC,
	OP_SEND_CONNECTED,
};

/* What one request needs, made before the gate closes. */
struct attempt {
	int sock;
	struct addr addr;
	struct iovec iov;
	struct msghdr msg;
};

FIXTURE(io_uring)
{
	struct servers srv;
	struct attempt at[3];
	struct ring ring;
};

FIXTURE_VARIANT(io_uring)
{
	enum op op;
	/* The request succeeds after the gate too. */
	bool allowed;
	/* Its result on success: a file descriptor, 0, or a length. */
	int success;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(io_uring, socket_inet) {
	.op = OP_SOCKET_INET, .success = INT_MAX,
};

FIXTURE_VARIANT_ADD(io_uring, socket_unix) {
	.op = OP_SOCKET_UNIX, .allowed = true, .success = INT_MAX,
};

FIXTURE_VARIANT_ADD(io_uring, connect) {
	.op = OP_CONNECT, .success = 0,
};

FIXTURE_VARIANT_ADD(io_uring, bind) {
	.op = OP_BIND, .success = 0,
};

FIXTURE_VARIANT_ADD(io_uring, listen) {
	.op = OP_LISTEN, .success = 0,
};

FIXTURE_VARIANT_ADD(io_uring, sendmsg) {
	.op = OP_SENDMSG, .success = 4,
};

FIXTURE_VARIANT_ADD(io_uring, sendmsg_zc) {
	.op = OP_SENDMSG_ZC, .success = 4,
};

FIXTURE_VARIANT_ADD(io_uring, send_addr) {
	.op = OP_SEND, .success = 4,
};

FIXTURE_VARIANT_ADD(io_uring, send_zc_addr) {
	.op = OP_SEND_ZC, .success = 4,
};

FIXTURE_VARIANT_ADD(io_uring, send_connected) {
	.op = OP_SEND_CONNECTED, .allowed = true, .success = 4,
};

/* clang-format on */

static void prepare(struct __test_metadata *const _metadata,
		    const struct servers *srv, enum op op, struct attempt *a)
{
	struct addr any = loopback(AF_INET);

	a->sock = -1;
	switch (op) {
	case OP_SOCKET_INET:
	case OP_SOCKET_UNIX:
		return;
	case OP_CONNECT:
		a->sock = socket(AF_INET, SOCK_STREAM, 0);
		a->addr = srv->addr[SRV_TCP4];
		break;
	case OP_BIND:
		a->sock = socket(AF_INET, SOCK_DGRAM, 0);
		a->addr = any;
		break;
	case OP_LISTEN:
		a->sock = socket(AF_INET, SOCK_STREAM, 0);
		ASSERT_EQ(0, bind_to(a->sock, &any));
		break;
	case OP_SEND_CONNECTED:
		a->sock = socket(AF_INET, SOCK_DGRAM, 0);
		ASSERT_EQ(0, connect_to(a->sock, &srv->addr[SRV_UDP4]));
		break;
	default:
		a->sock = socket(AF_INET, SOCK_DGRAM, 0);
		a->addr = srv->addr[SRV_UDP4];
		break;
	}
	ASSERT_LE(0, a->sock);
	a->iov = (struct iovec){ .iov_base = "ping", .iov_len = 4 };
	a->msg = (struct msghdr){
		.msg_name = &a->addr.sa,
		.msg_namelen = a->addr.len,
		.msg_iov = &a->iov,
		.msg_iovlen = 1,
	};
}

static struct io_uring_sqe make_sqe(enum op op, struct attempt *a)
{
	struct io_uring_sqe sqe = { .fd = a->sock };

	switch (op) {
	case OP_SOCKET_INET:
	case OP_SOCKET_UNIX:
		sqe.opcode = IORING_OP_SOCKET;
		sqe.fd = op == OP_SOCKET_INET ? AF_INET : AF_UNIX;
		sqe.off = SOCK_DGRAM;
		break;
	case OP_CONNECT:
		sqe.opcode = IORING_OP_CONNECT;
		sqe.addr = (unsigned long)&a->addr.sa;
		sqe.off = a->addr.len;
		break;
	case OP_BIND:
		sqe.opcode = IORING_OP_BIND;
		sqe.addr = (unsigned long)&a->addr.sa;
		sqe.addr2 = a->addr.len;
		break;
	case OP_LISTEN:
		sqe.opcode = IORING_OP_LISTEN;
		sqe.len = 1;
		break;
	case OP_SENDMSG:
	case OP_SENDMSG_ZC:
		sqe.opcode = op == OP_SENDMSG ? IORING_OP_SENDMSG :
						IORING_OP_SENDMSG_ZC;
		sqe.addr = (unsigned long)&a->msg;
		sqe.len = 1;
		break;
	case OP_SEND:
	case OP_SEND_ZC:
		sqe.opcode = op == OP_SEND ? IORING_OP_SEND : IORING_OP_SEND_ZC;
		sqe.addr = (unsigned long)"ping";
		sqe.len = 4;
		sqe.addr2 = (unsigned long)&a->addr.sa;
		sqe.addr_len = a->addr.len;
		break;
	case OP_SEND_CONNECTED:
		sqe.opcode = IORING_OP_SEND;
		sqe.addr = (unsigned long)"ping";
		sqe.len = 4;
		break;
	}
	return sqe;
}

FIXTURE_SETUP(io_uring)
{
	int i;

	servers_start(_metadata, &self->srv);
	become_user(_metadata);
	for (i = 0; i < ARRAY_SIZE(self->at); i++)
		prepare(_metadata, &self->srv, variant->op, &self->at[i]);
}

FIXTURE_TEARDOWN_PARENT(io_uring)
{
	servers_stop(&self->srv);
}

/* Run attempt i through ring r with extra sqe flags and personality. */
static int run(FIXTURE_DATA(io_uring) *self,
	       const FIXTURE_VARIANT(io_uring) *const variant, struct ring *r,
	       int i, unsigned int flags, unsigned short personality)
{
	struct io_uring_sqe sqe = make_sqe(variant->op, &self->at[i]);

	sqe.flags |= flags;
	sqe.personality = personality;
	return ring_run(r, &sqe);
}

#define EXPECT_SUCCESS(res)                                              \
	do {                                                             \
		if (variant->success == INT_MAX) {                       \
			EXPECT_LE(0, res);                               \
		} else {                                                 \
			EXPECT_EQ(variant->success, res);                \
		}                                                        \
	} while (0)

#define EXPECT_GATED(res)                                                \
	do {                                                             \
		if (variant->allowed) {                                  \
			EXPECT_SUCCESS(res);                             \
		} else {                                                 \
			EXPECT_EQ(-EPERM, res);                          \
		}                                                        \
	} while (0)

/* Inline submission, on a ring from before the gate and on a new one. */
TEST_F(io_uring, inline)
{
	struct ring later;

	ASSERT_EQ(0, ring_init(&self->ring, 0));
	EXPECT_SUCCESS(run(self, variant, &self->ring, 0, 0, 0));

	CLOSE_GATE();
	EXPECT_GATED(run(self, variant, &self->ring, 1, 0, 0));
	ASSERT_EQ(0, ring_init(&later, 0));
	EXPECT_GATED(run(self, variant, &later, 2, 0, 0));
}

/*
 * IOSQE_ASYNC sends the request to an io-wq worker, a thread that was
 * created before the gate closed, by a request made before.
 */
TEST_F(io_uring, io_wq)
{
	const struct io_uring_sqe nop = {
		.opcode = IORING_OP_NOP,
		.flags = IOSQE_ASYNC,
	};

	ASSERT_EQ(0, ring_init(&self->ring, 0));
	ASSERT_EQ(0, ring_run(&self->ring, &nop));
	ASSERT_TRUE(have_thread("iou-wrk-"));
	EXPECT_SUCCESS(run(self, variant, &self->ring, 0, IOSQE_ASYNC, 0));

	/* io_uring workers do not count as other threads. */
	CLOSE_GATE();
	ASSERT_TRUE(have_thread("iou-wrk-"));
	EXPECT_GATED(run(self, variant, &self->ring, 1, IOSQE_ASYNC, 0));
}

/*
 * An SQPOLL thread submits for the task, with the credentials it had when
 * it set the ring up (unprivileged SQPOLL: since 5.13).
 */
TEST_F(io_uring, sqpoll)
{
	ASSERT_EQ(0, ring_init(&self->ring, IORING_SETUP_SQPOLL));
	EXPECT_SUCCESS(run(self, variant, &self->ring, 0, 0, 0));
	/* Named when it first runs: by now it has. */
	ASSERT_TRUE(have_thread("iou-sqp-"));

	CLOSE_GATE();
	ASSERT_TRUE(have_thread("iou-sqp-"));
	EXPECT_GATED(run(self, variant, &self->ring, 1, 0, 0));
}

/*
 * A personality is a saved copy of the credentials: one registered before
 * the gate cannot be used after it, for any request, inline or in io-wq.
 * One registered after it is as gated as the task.
 */
TEST_F(io_uring, personality)
{
	int before, after;

	ASSERT_EQ(0, ring_init(&self->ring, 0));
	before = syscall(__NR_io_uring_register, self->ring.fd,
			 IORING_REGISTER_PERSONALITY, NULL, 0);
	ASSERT_LT(0, before);
	EXPECT_SUCCESS(run(self, variant, &self->ring, 0, 0, before));

	CLOSE_GATE();
	/* Refused before the request touches its socket: reuse it. */
	EXPECT_EQ(-EPERM, run(self, variant, &self->ring, 1, 0, before));
	EXPECT_EQ(-EPERM,
		  run(self, variant, &self->ring, 1, IOSQE_ASYNC, before));
	after = syscall(__NR_io_uring_register, self->ring.fd,
			IORING_REGISTER_PERSONALITY, NULL, 0);
	ASSERT_LT(0, after);
	EXPECT_GATED(run(self, variant, &self->ring, 2, 0, after));
}

/*
 * Not tested, because not prevented: an SQPOLL ring created by a process
 * that is not gated (say, the parent before fork) keeps running requests
 * with that process's credentials on that process's kernel thread, whoever
 * writes them into the shared ring.  The gate cannot tell who submitted.
 * DESIGN.md and disablenetwork.rst document it: close inherited rings
 * before closing the gate.
 */

TEST_HARNESS_MAIN
