/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal io_uring for the nosuid and disablenetwork tests: raw system
 * calls, no liburing (the guest has no libraries).  One request at a
 * time: ring_run() submits it and returns its result, or -10000 when no
 * completion came.
 */

#ifndef _NOSUID_URING_H
#define _NOSUID_URING_H

#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>

struct ring {
	int fd;
	bool sqpoll;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int ring_init(struct ring *r, unsigned int flags)
{
	struct io_uring_params p = {
		.flags = flags,
		/* Keep an SQPOLL thread awake for the whole test. */
		.sq_thread_idle = 20000,
	};
	size_t sq_size, cq_size;
	void *sq, *cq;

	r->fd = syscall(__NR_io_uring_setup, 8, &p);
	if (r->fd < 0)
		return -errno;
	r->sqpoll = flags & IORING_SETUP_SQPOLL;
	sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		sq_size = sq_size > cq_size ? sq_size : cq_size;
		cq_size = sq_size;
	}
	sq = mmap(NULL, sq_size, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		return -errno;
	cq = sq;
	if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
		cq = mmap(NULL, cq_size, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
		if (cq == MAP_FAILED)
			return -errno;
	}
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		       IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		return -errno;
	r->sq_tail = sq + p.sq_off.tail;
	r->sq_mask = sq + p.sq_off.ring_mask;
	r->sq_array = sq + p.sq_off.array;
	r->cq_head = cq + p.cq_off.head;
	r->cq_tail = cq + p.cq_off.tail;
	r->cq_mask = cq + p.cq_off.ring_mask;
	r->cqes = cq + p.cq_off.cqes;
	return 0;
}

static int ring_wait(struct ring *r, unsigned int to_submit,
		     struct io_uring_cqe *cqe)
{
	unsigned int head;
	unsigned int flags = IORING_ENTER_GETEVENTS;

	if (r->sqpoll)
		flags |= IORING_ENTER_SQ_WAKEUP;
	for (;;) {
		head = *r->cq_head;
		if (head != __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
			break;
		if (syscall(__NR_io_uring_enter, r->fd, to_submit, 1, flags,
			    NULL, 0) < 0 && errno != EINTR)
			return -errno;
		to_submit = 0;
	}
	*cqe = r->cqes[head & *r->cq_mask];
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return 0;
}

/* Submit one request, return the result of its completion. */
static int ring_run(struct ring *r, const struct io_uring_sqe *sqe)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask;
	struct io_uring_cqe cqe, notif;

	r->sqes[idx] = *sqe;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (ring_wait(r, 1, &cqe))
		return -10000;
	/* Zero-copy sends post a notification after the result. */
	if ((cqe.flags & IORING_CQE_F_MORE) && ring_wait(r, 0, &notif))
		return -10000;
	return cqe.res;
}

#endif /* _NOSUID_URING_H */
