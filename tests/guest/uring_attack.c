// SPDX-License-Identifier: MIT
/*
 * A hostile CUSE server over io_uring (CUSE_OVER_IO_URING,
 * kernel-patches/cuse-uring, issue 41 item 3): the attacks the series'
 * selftest (cuse_stream_test, cuse_uring.*) does not make.  No pilotd:
 * this program is the server.  It answers CUSE_INIT on /dev/cuse taking
 * CUSE_OVER_IO_URING, registers URING_ENTS entries on each of the ring's
 * queues (one a possible CPU) with FUSE_IO_URING_CMD_REGISTER and commits
 * answers with FUSE_IO_URING_CMD_COMMIT_AND_FETCH, with raw io_uring
 * system calls; a thread of it (or a child) uses the device.
 *
 * Usage: uring-attack [ATTACK]...   (none: all of them)
 *        uring-attack --floor N      (a measurement, below main())
 *
 *   unknown-id   a read's answer committed under an id the kernel never
 *                gave (and 0): -ENOENT for that commit; the right one
 *                after it is taken and the read gets its byte
 *   stale-id     an answer committed twice: the second gets -ENOENT, the
 *                ring goes on serving
 *   int-bit      an answer whose out header's unique has FUSE_INT_REQ_BIT
 *                set (an interrupt's reply, which the ring does not take):
 *                the read fails with ENOENT, and no WARNING (7.3.4 warned
 *                and took the answer: cuse-uring/0001)
 *   wrong-queue  a commit naming a queue the ring does not have: -EINVAL
 *   sizes        answers whose payload_sz is above the payload buffer,
 *                above what the read asked, short of fuse_open_out, whose
 *                error is positive or below -ERESTARTSYS, whose unique is
 *                0 or another request's: each call fails with an error,
 *                the next round is served
 *   bad-register a REGISTER with a short header, one with a short payload
 *                and one for a queue that does not exist, each while the
 *                ring serves with a read in flight: -EINVAL; the ring is
 *                off after it (as on a FUSE connection), the server closes
 *                its files: the read returns
 *   ring-closed  the server closes its io_uring while a read waits in it,
 *                /dev/cuse still open: the read waits for the server; the
 *                server closes /dev/cuse: the read returns
 *   cuse-closed  the server closes its /dev/cuse while a read waits in
 *                its ring (the ring's waiting entry still holds the file),
 *                then the ring: the read returns
 *   killed       the server killed with 4 reads in its ring, unanswered,
 *                and a close() waiting behind one: all return
 *   release-race 300 rounds of an open, a read and a close() from another
 *                thread while the server commits: every open released
 *   commit-abort 50 devices: a read's answer committed while another
 *                thread closes /dev/cuse, then the ring closed: the read
 *                returns, answered or not
 *
 * Each attack runs in a child with a deadline (ATTACK_S); one that does not
 * finish is reported as a hang and killed.  Prints "PASS name" or
 * "FAIL name: why" for each; exits 1 if any failed, or if the kernel's log
 * holds a warning, a bug or an oops.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guestlib.h"

/*
 * fuse-io-uring's uapi (include/uapi/linux/fuse.h of 7.3, and the
 * cuse-uring series' CUSE_OVER_IO_URING), which the host's <linux/fuse.h>
 * (7.38) does not have.
 */
#define CU_CUSE_FLAG	 (1u << 4) /* CUSE_OVER_IO_URING */
#define CU_CMD_REGISTER	 1	   /* FUSE_IO_URING_CMD_REGISTER */
#define CU_CMD_COMMIT	 2	   /* FUSE_IO_URING_CMD_COMMIT_AND_FETCH */
#define CU_INT_REQ_BIT	 1ull	   /* FUSE_INT_REQ_BIT, fs/fuse/fuse_dev_i.h */
#define CU_HEADER_IN_OUT 128	   /* FUSE_URING_IN_OUT_HEADER_SZ */
#define CU_HEADER_OP	 128	   /* FUSE_URING_OP_IN_OUT_SZ */
struct cu_ent_in_out {
	uint64_t flags;
	uint64_t commit_id;
	uint32_t payload_sz;
	uint32_t offset;
	uint64_t reserved;
};
struct cu_req_header {
	char in_out[CU_HEADER_IN_OUT];
	char op_in[CU_HEADER_OP];
	struct cu_ent_in_out ent;
};
struct cu_cmd_req {
	uint64_t flags;
	uint64_t commit_id;
	uint16_t qid;
	uint8_t padding[6];
	uint64_t bufpool[2];
};

#define ATTACK_S      60
#define BUF_SIZE      (FUSE_MIN_READ_BUFFER + 4096)
#define URING_ENTS    2 /* a queue */
#define MAX_QUEUES    8
#define MAX_ENTS      (URING_ENTS * MAX_QUEUES)
/* above the ring's max_payload_sz: 32 pages (CUSE's max_pages) */
#define PAYLOAD	      (256 * 1024)
#define FAILED	      attack_failed
#define ENABLE_URING  "/sys/module/fuse/parameters/enable_uring"
/* user_data of a command that is no entry's: a deliberately bad one */
#define BAD_CMD	      1000

struct ent {
	struct cu_req_header hdr;
	struct iovec iov[2];
	char *payload;
	uint16_t qid;
};

/* One CUSE server: its /dev/cuse, its io_uring and the ring's entries. */
struct srv {
	int cuse;
	int ring;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes; /* 128 bytes each: two a slot */
	struct io_uring_cqe *cqes;
	void *sq_map, *cq_map, *sqe_map;
	size_t sq_len, cq_len, sqe_len;
	struct ent ents[MAX_ENTS];
	int nents;
	char name[48], path[64];
	/* the opens and releases it answered */
	atomic_int opens, releases;
};

static int reply(int fd, uint64_t unique, int error, const void *arg, size_t len)
{
	struct fuse_out_header out = { .len = sizeof(out) + len, .error = error, .unique = unique };
	struct iovec iov[2] = { { &out, sizeof(out) }, { (void *)arg, len } };

	return writev(fd, iov, len ? 2 : 1) == (ssize_t)out.len ? 0 : -errno;
}

static int ring_map(struct srv *s)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQE128 };

	s->ring = (int)syscall(__NR_io_uring_setup, 64, &p);
	if (s->ring < 0)
		return -errno;
	s->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	s->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	s->sqe_len = p.sq_entries * 2 * sizeof(struct io_uring_sqe);
	s->sq_map = mmap(NULL, s->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			 s->ring, IORING_OFF_SQ_RING);
	s->cq_map = mmap(NULL, s->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			 s->ring, IORING_OFF_CQ_RING);
	s->sqe_map = mmap(NULL, s->sqe_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			  s->ring, IORING_OFF_SQES);
	if (s->sq_map == MAP_FAILED || s->cq_map == MAP_FAILED || s->sqe_map == MAP_FAILED)
		return -errno;
	/*
	 * A mapping holds the ring's file, and the ring's waiting commands
	 * hold /dev/cuse's: a reader forked from here must not keep them.
	 */
	if (madvise(s->sq_map, s->sq_len, MADV_DONTFORK) ||
	    madvise(s->cq_map, s->cq_len, MADV_DONTFORK) ||
	    madvise(s->sqe_map, s->sqe_len, MADV_DONTFORK))
		return -errno;
	s->sq_tail = (unsigned int *)((char *)s->sq_map + p.sq_off.tail);
	s->sq_mask = (unsigned int *)((char *)s->sq_map + p.sq_off.ring_mask);
	s->sq_array = (unsigned int *)((char *)s->sq_map + p.sq_off.array);
	s->cq_head = (unsigned int *)((char *)s->cq_map + p.cq_off.head);
	s->cq_tail = (unsigned int *)((char *)s->cq_map + p.cq_off.tail);
	s->cq_mask = (unsigned int *)((char *)s->cq_map + p.cq_off.ring_mask);
	s->cqes = (struct io_uring_cqe *)((char *)s->cq_map + p.cq_off.cqes);
	s->sqes = s->sqe_map;
	return 0;
}

static void ring_close(struct srv *s)
{
	if (s->ring < 0)
		return;
	munmap(s->sq_map, s->sq_len);
	munmap(s->cq_map, s->cq_len);
	munmap(s->sqe_map, s->sqe_len);
	close(s->ring);
	s->ring = -1;
}

/*
 * Submit command op for the buffers of iov (NULL: none) on queue qid with
 * commit_id; user_data tells the completion.  0 or -errno.
 */
static int submit_wait(struct srv *s, uint32_t op, const struct iovec *iov, uint16_t qid,
		       uint64_t commit_id, uint64_t user_data, unsigned int wait);

static int submit(struct srv *s, uint32_t op, const struct iovec *iov, uint16_t qid,
		  uint64_t commit_id, uint64_t user_data)
{
	return submit_wait(s, op, iov, qid, commit_id, user_data, 0);
}

/* The same, and with wait 1, wait for a completion in the same system call. */
static int submit_wait(struct srv *s, uint32_t op, const struct iovec *iov, uint16_t qid,
		       uint64_t commit_id, uint64_t user_data, unsigned int wait)
{
	unsigned int tail = *s->sq_tail, idx = tail & *s->sq_mask;
	struct io_uring_sqe *sqe = &s->sqes[2 * idx];
	struct cu_cmd_req *req = (struct cu_cmd_req *)sqe->cmd;

	memset(sqe, 0, 2 * sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = s->cuse;
	sqe->cmd_op = op;
	sqe->addr = (uintptr_t)iov;
	sqe->len = iov ? 2 : 0;
	sqe->user_data = user_data;
	req->qid = qid;
	req->commit_id = commit_id;
	s->sq_array[idx] = idx;
	__atomic_store_n(s->sq_tail, tail + 1, __ATOMIC_RELEASE);
	return syscall(__NR_io_uring_enter, s->ring, 1, wait, wait ? IORING_ENTER_GETEVENTS : 0,
		       NULL, 0) == 1 ? 0 : -errno;
}

/* The next completion within ms: 1 and *cqe, 0 on timeout. */
static int completion(struct srv *s, struct io_uring_cqe *cqe, int ms)
{
	struct pollfd pfd = { .fd = s->ring, .events = POLLIN };
	unsigned int head;

	for (;;) {
		head = *s->cq_head;
		if (head != __atomic_load_n(s->cq_tail, __ATOMIC_ACQUIRE)) {
			*cqe = s->cqes[head & *s->cq_mask];
			__atomic_store_n(s->cq_head, head + 1, __ATOMIC_RELEASE);
			return 1;
		}
		if (poll(&pfd, 1, ms) <= 0)
			return 0;
	}
}

static int set_enable_uring(void)
{
	int fd = open(ENABLE_URING, O_WRONLY | O_CLOEXEC);
	int ok = fd >= 0 && write(fd, "Y", 1) == 1;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static int register_ent(struct srv *s, int i)
{
	return submit(s, CU_CMD_REGISTER, s->ents[i].iov, s->ents[i].qid, 0, (uint64_t)i);
}

/*
 * A device named name served over the ring, or, without take_ring, one
 * whose server does not take CUSE_OVER_IO_URING; NULL or why not.
 */
static const char *srv_start_ring(struct srv *s, const char *name, bool take_ring)
{
	static char buf[BUF_SIZE];
	const struct fuse_in_header *in = (const void *)buf;
	const struct cuse_init_in *init = (const void *)(in + 1);
	struct {
		struct cuse_init_out out;
		char info[64];
	} arg = { 0 };
	struct io_uring_cqe cqe;
	int nq = get_nprocs_conf(), len, err;

	memset(s, 0, sizeof(*s));
	s->ring = -1;
	snprintf(s->name, sizeof(s->name), "%s-%d", name, getpid());
	snprintf(s->path, sizeof(s->path), "/dev/%s", s->name);
	if (nq < 1 || nq > MAX_QUEUES)
		return FAILED("%d possible CPUs", nq);
	if (set_enable_uring())
		return FAILED("%s: %s", ENABLE_URING, strerror(errno));
	s->cuse = open("/dev/cuse", O_RDWR | O_CLOEXEC);
	if (s->cuse < 0)
		return FAILED("/dev/cuse: %s", strerror(errno));
	if (read(s->cuse, buf, sizeof(buf)) < (ssize_t)(sizeof(*in) + sizeof(*init)) ||
	    in->opcode != CUSE_INIT)
		return FAILED("no CUSE_INIT");
	if (!(init->flags & CU_CUSE_FLAG))
		return FAILED("CUSE_INIT does not offer CUSE_OVER_IO_URING");
	arg.out = (struct cuse_init_out){ .major = init->major, .minor = init->minor,
					  .flags = take_ring ? CU_CUSE_FLAG : 0, .max_read = 4096,
					  .max_write = 4096 };
	len = snprintf(arg.info, sizeof(arg.info), "DEVNAME=%s", s->name) + 1;
	if (reply(s->cuse, in->unique, 0, &arg, sizeof(arg.out) + len))
		return FAILED("CUSE_INIT's answer: %s", strerror(errno));
	if (!take_ring)
		return NULL;
	err = ring_map(s);
	if (err)
		return FAILED("io_uring: %s", strerror(-err));
	s->nents = nq * URING_ENTS;
	for (int i = 0; i < s->nents; i++) {
		struct ent *e = &s->ents[i];

		e->qid = (uint16_t)(i / URING_ENTS);
		if (!e->payload)
			e->payload = malloc(PAYLOAD);
		if (!e->payload)
			return FAILED("no memory");
		e->iov[0] = (struct iovec){ &e->hdr, sizeof(e->hdr) };
		e->iov[1] = (struct iovec){ e->payload, PAYLOAD };
		err = register_ent(s, i);
		if (err)
			return FAILED("REGISTER: %s", strerror(-err));
	}
	if (completion(s, &cqe, 0))
		return FAILED("REGISTER completed with %d", cqe.res);
	return NULL;
}

static const char *srv_start(struct srv *s, const char *name)
{
	return srv_start_ring(s, name, true);
}

static void srv_stop(struct srv *s)
{
	ring_close(s);
	if (s->cuse >= 0)
		close(s->cuse);
	s->cuse = -1;
	for (int i = 0; i < s->nents; i++) {
		free(s->ents[i].payload);
		s->ents[i].payload = NULL;
	}
}

static const struct fuse_in_header *ent_in(const struct ent *e)
{
	return (const struct fuse_in_header *)e->hdr.in_out;
}

/* Put an answer into e: out header (error, unique) and len bytes of arg. */
static void ent_answer(struct ent *e, int error, uint64_t unique, const void *arg, size_t len)
{
	struct fuse_out_header out = { .len = sizeof(out) + len, .error = error, .unique = unique };

	memcpy(e->hdr.in_out, &out, sizeof(out));
	if (len)
		memcpy(e->payload, arg, len);
	e->hdr.ent.payload_sz = (uint32_t)len;
}

/* The answer a well-behaved server gives to e's request. */
static void ent_answer_well(struct srv *s, struct ent *e)
{
	const struct fuse_in_header *in = ent_in(e);
	struct fuse_open_out open_out = { .open_flags = FOPEN_NONSEEKABLE };
	struct fuse_write_out write_out = { 0 };
	struct fuse_poll_out poll_out = { .revents = POLLOUT };
	uint64_t unique = in->unique;

	switch (in->opcode) {
	case FUSE_OPEN:
		atomic_fetch_add(&s->opens, 1);
		ent_answer(e, 0, unique, &open_out, sizeof(open_out));
		break;
	case FUSE_READ:
		ent_answer(e, 0, unique, "r", 1);
		break;
	case FUSE_WRITE:
		write_out.size = ((const struct fuse_write_in *)e->hdr.op_in)->size;
		ent_answer(e, 0, unique, &write_out, sizeof(write_out));
		break;
	case FUSE_POLL:
		ent_answer(e, 0, unique, &poll_out, sizeof(poll_out));
		break;
	case FUSE_RELEASE:
		atomic_fetch_add(&s->releases, 1);
		ent_answer(e, 0, unique, NULL, 0);
		break;
	default:
		ent_answer(e, -ENOSYS, unique, NULL, 0);
		break;
	}
}

static int commit(struct srv *s, struct ent *e)
{
	return submit(s, CU_CMD_COMMIT, e->iov, e->qid, e->hdr.ent.commit_id,
		      (uint64_t)(e - s->ents));
}

/*
 * Wait up to ms for a request; its entry, or NULL on timeout or on a
 * completion that is an error (*res).  Completions of BAD_CMD are kept in
 * *bad (-1: none came).
 */
static struct ent *next_req(struct srv *s, int ms, int *res, int *bad)
{
	struct io_uring_cqe cqe;

	*res = 0;
	while (completion(s, &cqe, ms)) {
		if (cqe.user_data == BAD_CMD) {
			if (bad)
				*bad = cqe.res;
			continue;
		}
		if (cqe.res < 0 || cqe.user_data >= (uint64_t)s->nents) {
			*res = cqe.res < 0 ? cqe.res : -ERANGE;
			return NULL;
		}
		return &s->ents[cqe.user_data];
	}
	return NULL;
}

/* Answer requests well until one of opcode comes; it is returned unanswered. */
static struct ent *serve_until(struct srv *s, uint32_t opcode, int ms)
{
	struct ent *e;
	int res;

	while ((e = next_req(s, ms, &res, NULL))) {
		if (ent_in(e)->opcode == opcode)
			return e;
		ent_answer_well(s, e);
		if (commit(s, e))
			return NULL;
	}
	return NULL;
}

/* The result of a BAD_CMD within 5 s (-ETIME: none). */
static int bad_result(struct srv *s)
{
	int bad = -ETIME, res;

	if (next_req(s, 5000, &res, &bad))
		return -EPROTO; /* a request where none was expected */
	return bad;
}

/*
 * ---- the device's side ----
 * Opens and closes run in threads of the server's process, answered at
 * once; reads, which the attacks hold, run in a child process of their
 * own: a thread that waits for an answer it sent to its own process cannot
 * be killed (a sent request's wait ignores even SIGKILL), and the process
 * would never end to close the server's files.
 */
struct call {
	pthread_t thread;
	pid_t reader; /* a read's process */
	int result;   /* the pipe it reports on */
	int fd;
	const char *path;
	ssize_t ret;
	int err;
	atomic_bool done;
	char buf[16];
};

static void *call_open(void *arg)
{
	struct call *c = arg;
	int fd = -1;

	for (int i = 0; i < 500; i++) {
		fd = open(c->path, O_RDWR | O_CLOEXEC);
		if (fd >= 0 || (errno != ENOENT && errno != ENXIO && errno != ENODEV))
			break;
		usleep(10000);
	}
	c->ret = fd;
	c->err = fd < 0 ? errno : 0;
	atomic_store(&c->done, true);
	return NULL;
}

static void *call_close(void *arg)
{
	struct call *c = arg;

	c->ret = close(c->fd);
	c->err = c->ret < 0 ? errno : 0;
	atomic_store(&c->done, true);
	return NULL;
}

static void call_start(struct call *c, void *(*fn)(void *))
{
	c->reader = 0;
	atomic_store(&c->done, false);
	if (pthread_create(&c->thread, NULL, fn, c))
		fail("pthread_create");
}

/* A read of c->fd in a child process, which reports ret, err and buf. */
static void read_start(struct call *c)
{
	int pipefd[2];

	atomic_store(&c->done, false);
	if (pipe2(pipefd, O_CLOEXEC))
		fail("pipe: %s", strerror(errno));
	c->reader = fork();
	if (c->reader < 0)
		fail("fork: %s", strerror(errno));
	if (c->reader == 0) {
		/* not the server's /dev/cuse or ring: they must close with it */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != c->fd && fd != pipefd[1])
				close(fd);
		c->ret = read(c->fd, c->buf, sizeof(c->buf));
		c->err = c->ret < 0 ? errno : 0;
		_exit(write(pipefd[1], c, sizeof(*c)) == sizeof(*c) ? 0 : 1);
	}
	close(pipefd[1]);
	c->result = pipefd[0];
}

/* Whether c returned within ms (joined, or its process reaped, then). */
static bool call_returned(struct call *c, int ms)
{
	struct pollfd pfd = { .fd = c->result, .events = POLLIN };
	struct call got;

	if (c->reader > 0) {
		if (poll(&pfd, 1, ms) != 1)
			return false;
		if (read(c->result, &got, sizeof(got)) != sizeof(got))
			fail("the reader died without a word");
		c->ret = got.ret;
		c->err = got.err;
		memcpy(c->buf, got.buf, sizeof(c->buf));
		close(c->result);
		waitpid(c->reader, NULL, 0);
		c->reader = 0;
		atomic_store(&c->done, true);
		return true;
	}
	for (int i = 0; i < ms && !atomic_load(&c->done); i++)
		usleep(1000);
	if (!atomic_load(&c->done))
		return false;
	pthread_join(c->thread, NULL);
	return true;
}

/* Open s's device, serving the open; the descriptor or -errno. */
static int dev_open(struct srv *s)
{
	struct call c = { .path = s->path };
	struct ent *e;

	call_start(&c, call_open);
	e = serve_until(s, FUSE_OPEN, 5000);
	if (!e)
		return -ETIME;
	ent_answer_well(s, e);
	if (commit(s, e) || !call_returned(&c, 5000))
		return -ETIME;
	return c.ret < 0 ? -c.err : (int)c.ret;
}

/* A read of fd started, its FUSE_READ taken and held: its entry, or NULL. */
static struct ent *held_read(struct srv *s, struct call *c, int fd)
{
	c->fd = fd;
	read_start(c);
	return serve_until(s, FUSE_READ, 5000);
}

/* Close fd while serving its release. */
static const char *dev_close(struct srv *s, int fd)
{
	struct call c = { .fd = fd };
	struct ent *e;

	call_start(&c, call_close);
	e = serve_until(s, FUSE_RELEASE, 5000);
	if (!e)
		return FAILED("no FUSE_RELEASE");
	ent_answer_well(s, e);
	if (commit(s, e) || !call_returned(&c, 5000))
		return FAILED("the close did not return");
	return NULL;
}

/* A round of read on fd: the byte the server answers. */
static const char *read_round(struct srv *s, int fd)
{
	struct call c;
	struct ent *e = held_read(s, &c, fd);

	if (!e)
		return FAILED("no FUSE_READ");
	ent_answer_well(s, e);
	if (commit(s, e))
		return FAILED("commit: %s", strerror(errno));
	if (!call_returned(&c, 5000))
		return FAILED("the read did not return");
	if (c.ret != 1 || c.buf[0] != 'r')
		return FAILED("the read returned %zd (%s)", c.ret, strerror(c.err));
	return NULL;
}


/* ---- the attacks ---- */

/* A device served over the ring, opened, and a read of it held: NULL or why not. */
static const char *open_held(struct srv *s, const char *name, struct call *c, int *fd,
			     struct ent **e)
{
	const char *why = srv_start(s, name);

	if (why)
		return why;
	*fd = dev_open(s);
	if (*fd < 0)
		return FAILED("open: %s", strerror(-*fd));
	*e = held_read(s, c, *fd);
	return *e ? NULL : FAILED("no FUSE_READ");
}

/* The end of an attack: a read served again, the device closed, the server gone. */
static const char *finish(struct srv *s, int fd)
{
	const char *why = read_round(s, fd);

	if (!why)
		why = dev_close(s, fd);
	srv_stop(s);
	return why;
}

/* A bad command for e's request, which must fail with want. */
static const char *bad_commit(struct srv *s, struct ent *e, uint16_t qid, uint64_t id, int want)
{
	int err;

	if (submit(s, CU_CMD_COMMIT, e->iov, qid, id, BAD_CMD))
		return FAILED("submit: %s", strerror(errno));
	err = bad_result(s);
	if (err != want)
		return FAILED("a commit of id %llu on queue %u: %d, not %d",
			      (unsigned long long)id, qid, err, want);
	return NULL;
}

static const char *attack_unknown_id(void)
{
	static struct srv s;
	const char *why;
	struct call c;
	struct ent *e;
	int fd;

	why = open_held(&s, "cu-unknown", &c, &fd, &e);
	if (why)
		return why;
	ent_answer_well(&s, e);
	why = bad_commit(&s, e, e->qid, e->hdr.ent.commit_id + 1000, -ENOENT);
	if (!why)
		why = bad_commit(&s, e, e->qid, 0, -ENOENT);
	if (why)
		return why;
	if (call_returned(&c, 200))
		return FAILED("the read returned after a wrong commit");
	if (commit(&s, e) || !call_returned(&c, 5000) || c.ret != 1)
		return FAILED("the read did not get its answer after the right commit");
	return finish(&s, fd);
}

static const char *attack_stale_id(void)
{
	static struct srv s;
	const char *why;
	struct call c;
	struct ent *e;
	int fd;

	why = open_held(&s, "cu-stale", &c, &fd, &e);
	if (why)
		return why;
	ent_answer_well(&s, e);
	if (commit(&s, e) || !call_returned(&c, 5000) || c.ret != 1)
		return FAILED("the first answer was not taken");
	/* the same id again, the entry waiting for the next request */
	why = bad_commit(&s, e, e->qid, e->hdr.ent.commit_id, -ENOENT);
	return why ? why : finish(&s, fd);
}

static const char *attack_int_bit(void)
{
	static struct srv s;
	const char *why;
	struct call c;
	struct ent *e;
	int fd;

	why = open_held(&s, "cu-intbit", &c, &fd, &e);
	if (why)
		return why;
	ent_answer(e, 0, ent_in(e)->unique | CU_INT_REQ_BIT, "r", 1);
	if (commit(&s, e))
		return FAILED("commit: %s", strerror(errno));
	if (!call_returned(&c, 5000))
		return FAILED("the read did not return");
	/* cuse-uring/0001: refused as another request's unique, no warning */
	if (c.ret != -1 || c.err != ENOENT)
		return FAILED("the read returned %zd (%s), not ENOENT", c.ret,
			      c.ret < 0 ? strerror(c.err) : "");
	return finish(&s, fd);
}

static const char *attack_wrong_queue(void)
{
	static struct srv s;
	const char *why;
	struct call c;
	struct ent *e;
	int fd;

	why = open_held(&s, "cu-queue", &c, &fd, &e);
	if (why)
		return why;
	ent_answer_well(&s, e);
	why = bad_commit(&s, e, (uint16_t)get_nprocs_conf(), e->hdr.ent.commit_id, -EINVAL);
	if (why)
		return why;
	if (commit(&s, e) || !call_returned(&c, 5000) || c.ret != 1)
		return FAILED("the read did not get its answer");
	return finish(&s, fd);
}

enum bad_answer { BIG_PAYLOAD, ABOVE_ASKED, SHORT_OPEN, POSITIVE, BELOW_RESTART, UNIQUE_0,
		  UNIQUE_OTHER };

static const char *const bad_names[] = {
	[BIG_PAYLOAD] = "payload_sz above the buffer",
	[ABOVE_ASKED] = "more than the read asked",
	[SHORT_OPEN] = "fuse_open_out cut short",
	[POSITIVE] = "a positive error",
	[BELOW_RESTART] = "an error below -ERESTARTSYS",
	[UNIQUE_0] = "unique 0",
	[UNIQUE_OTHER] = "another request's unique",
};

static const char *attack_sizes(void)
{
	static struct srv s;
	static char big[8192];
	const char *why = srv_start(&s, "cu-sizes");
	struct fuse_open_out open_out = { 0 };
	struct call c = { .path = s.path };
	struct ent *e;
	int fd;

	if (why)
		return why;
	/* an open answered with fuse_open_out cut short */
	call_start(&c, call_open);
	e = serve_until(&s, FUSE_OPEN, 5000);
	if (!e)
		return FAILED("no FUSE_OPEN");
	ent_answer(e, 0, ent_in(e)->unique, &open_out, sizeof(open_out) - 4);
	if (commit(&s, e) || !call_returned(&c, 5000))
		return FAILED("%s: the open did not return", bad_names[SHORT_OPEN]);
	if (c.ret >= 0)
		return FAILED("%s: the open succeeded", bad_names[SHORT_OPEN]);
	fd = dev_open(&s);
	if (fd < 0)
		return FAILED("open: %s", strerror(-fd));
	for (int b = BIG_PAYLOAD; b <= UNIQUE_OTHER; b++) {
		if (b == SHORT_OPEN)
			continue;
		e = held_read(&s, &c, fd);
		if (!e)
			return FAILED("%s: no FUSE_READ", bad_names[b]);
		uint64_t unique = ent_in(e)->unique;

		switch (b) {
		case BIG_PAYLOAD:
			ent_answer(e, 0, unique, "r", 1);
			e->hdr.ent.payload_sz = PAYLOAD * 2;
			break;
		case ABOVE_ASKED:
			ent_answer(e, 0, unique, big, sizeof(big));
			break;
		case POSITIVE:
			ent_answer(e, 5, unique, "r", 1);
			break;
		case BELOW_RESTART:
			ent_answer(e, -600, unique, "r", 1);
			break;
		case UNIQUE_0:
			ent_answer(e, 0, 0, "r", 1);
			break;
		case UNIQUE_OTHER:
			ent_answer(e, 0, unique + 2, "r", 1);
			break;
		}
		if (commit(&s, e))
			return FAILED("%s: commit: %s", bad_names[b], strerror(errno));
		if (!call_returned(&c, 5000))
			return FAILED("%s: the read did not return", bad_names[b]);
		if (c.ret >= 0)
			return FAILED("%s: the read returned %zd", bad_names[b], c.ret);
		note("sizes: %s: the read failed with %s", bad_names[b], strerror(c.err));
		why = read_round(&s, fd);
		if (why)
			return FAILED("after %s: %s", bad_names[b], why);
	}
	why = dev_close(&s, fd);
	srv_stop(&s);
	return why;
}

/*
 * One bad REGISTER (iov, qid) while a read waits in the ring: -EINVAL.
 * fuse-io-uring then turns the connection's ring off (fch->io_uring = 0,
 * as for FUSE), so the held read's answer cannot be committed; the read
 * returns when the server closes its files.
 */
static const char *bad_register(const char *what, struct iovec *iov, int qid)
{
	static struct srv s;
	const char *why;
	struct call c;
	struct ent *e;
	double t0;
	int fd, err;

	why = open_held(&s, "cu-register", &c, &fd, &e);
	if (why)
		return why;
	if (submit(&s, CU_CMD_REGISTER, iov, (uint16_t)qid, 0, BAD_CMD))
		return FAILED("submit: %s", strerror(errno));
	err = bad_result(&s);
	if (err != -EINVAL)
		return FAILED("a REGISTER with %s: %d, not -EINVAL", what, err);
	ent_answer_well(&s, e);
	if (submit(&s, CU_CMD_COMMIT, e->iov, e->qid, e->hdr.ent.commit_id, BAD_CMD))
		return FAILED("submit: %s", strerror(errno));
	err = bad_result(&s);
	if (call_returned(&c, 500)) {
		why = finish(&s, fd);
		note("bad-register: %s: the ring still serves", what);
		return why;
	}
	t0 = now_s();
	srv_stop(&s);
	if (!call_returned(&c, 5000))
		return FAILED("%s: the read did not return when the server closed its files", what);
	note("bad-register: %s: the commit after it: %d; the read returned %zd (%s) %.3f s after "
	     "the server closed its files", what, err, c.ret, c.ret < 0 ? strerror(c.err) : "",
	     now_s() - t0);
	close(fd);
	return NULL;
}

static const char *attack_bad_register(void)
{
	static struct cu_req_header hdr;
	static char small[4096], payload[PAYLOAD];
	struct iovec short_hdr[2] = { { &hdr, sizeof(hdr) - 8 }, { payload, PAYLOAD } };
	struct iovec short_payload[2] = { { &hdr, sizeof(hdr) }, { small, sizeof(small) } };
	struct iovec fine[2] = { { &hdr, sizeof(hdr) }, { payload, PAYLOAD } };
	const char *why = bad_register("a short header", short_hdr, 0);

	if (!why)
		why = bad_register("a short payload", short_payload, 0);
	if (!why)
		why = bad_register("a queue past the last", fine, get_nprocs_conf());
	return why;
}

/*
 * A read waits in the ring; the server closes its io_uring and its
 * /dev/cuse, ring_first or not.  The read returns once both are closed:
 * while the ring's waiting entry holds /dev/cuse's file, closing the
 * descriptor ends nothing, and while /dev/cuse is open the read is the
 * server's to answer.
 */
static const char *teardown(const char *name, bool ring_first)
{
	static struct srv s;
	const char *why;
	struct call c;
	struct ent *e;
	double t0;
	int fd;

	why = open_held(&s, name, &c, &fd, &e);
	if (why)
		return why;
	if (ring_first) {
		ring_close(&s);
	} else {
		close(s.cuse);
		s.cuse = -1;
	}
	if (call_returned(&c, 1000))
		note("%s: the read returned %zd (%s) after the first close", name, c.ret,
		     c.ret < 0 ? strerror(c.err) : "");
	t0 = now_s();
	if (ring_first) {
		close(s.cuse);
		s.cuse = -1;
	} else {
		ring_close(&s);
	}
	if (!atomic_load(&c.done) && !call_returned(&c, 5000))
		return FAILED("the read did not return when the server's files closed");
	if (c.ret >= 0)
		return FAILED("the read returned %zd", c.ret);
	note("%s: the read failed with %s, %.3f s after the second close", name,
	     strerror(c.err), now_s() - t0);
	close(fd);
	srv_stop(&s);
	return NULL;
}

static const char *attack_ring_closed(void)
{
	return teardown("cu-ringclosed", true);
}

static const char *attack_cuse_closed(void)
{
	return teardown("cu-cuseclosed", false);
}

static const char *attack_killed(void)
{
	static struct srv s;
	struct call reads[4], closer;
	int fds[4], ready[2], status;
	const char *why;
	char byte;
	double t0;
	pid_t server;

	if (pipe2(ready, O_CLOEXEC))
		return FAILED("pipe");
	server = fork();
	if (server == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		why = srv_start(&s, "cu-killed");
		if (why)
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		/* answer the opens, hold everything else */
		for (;;) {
			struct ent *e = serve_until(&s, FUSE_READ, -1);

			if (!e)
				pause();
		}
	}
	close(ready[1]);
	if (read(ready[0], &byte, 1) != 1)
		return FAILED("the server did not start");
	snprintf(s.path, sizeof(s.path), "/dev/cu-killed-%d", server);
	for (int i = 0; i < 4; i++) {
		struct call c = { .path = s.path };

		call_open(&c);
		if (c.ret < 0)
			return FAILED("open: %s", strerror(c.err));
		fds[i] = (int)c.ret;
	}
	/* 2 reads take the queue's entries, the others wait behind them */
	for (int i = 0; i < 4; i++) {
		reads[i].fd = fds[i];
		read_start(&reads[i]);
	}
	usleep(300000);
	closer.fd = fds[0];
	call_start(&closer, call_close);
	usleep(100000);
	t0 = now_s();
	kill(server, SIGKILL);
	for (int i = 0; i < 500 && waitpid(server, &status, WNOHANG) == 0; i++)
		usleep(10000);
	if (waitpid(server, &status, WNOHANG) == 0)
		return FAILED("the server did not end within 5 s of SIGKILL");
	for (int i = 0; i < 4; i++) {
		if (!call_returned(&reads[i], 5000))
			return FAILED("read %d did not return after the server died", i);
		if (reads[i].ret >= 0)
			return FAILED("read %d returned %zd", i, reads[i].ret);
	}
	if (!call_returned(&closer, 5000))
		return FAILED("the close did not return after the server died");
	note("killed: 4 reads (%s) and a close returned within %.3f s", strerror(reads[1].err),
	     now_s() - t0);
	for (int i = 1; i < 4; i++)
		close(fds[i]);
	return NULL;
}

struct race {
	struct srv *s;
	atomic_bool stop;
	int rounds;
	const char *why;
};

/* The device's side of release-race: open, read in a thread, close here. */
static void *race_user(void *arg)
{
	struct race *r = arg;
	struct call c = { .path = r->s->path };

	for (int i = 0; i < r->rounds && !r->why; i++) {
		call_open(&c);
		if (c.ret < 0) {
			r->why = FAILED("open %d: %s", i, strerror(c.err));
			break;
		}
		c.fd = (int)c.ret;
		read_start(&c);
		usleep((useconds_t)(rand() % 300));
		close(c.fd);
		if (!call_returned(&c, 10000)) {
			r->why = FAILED("read %d did not return", i);
			break;
		}
	}
	atomic_store(&r->stop, true);
	return NULL;
}

static const char *attack_release_race(void)
{
	static struct srv s;
	const char *why = srv_start(&s, "cu-race");
	struct race r = { .s = &s, .rounds = 300 };
	pthread_t user;
	struct ent *e;
	int res;

	if (why)
		return why;
	srand(1);
	if (pthread_create(&user, NULL, race_user, &r))
		return FAILED("pthread_create");
	while (!atomic_load(&r.stop) || atomic_load(&s.releases) < atomic_load(&s.opens)) {
		e = next_req(&s, 200, &res, NULL);
		if (!e) {
			if (res)
				return FAILED("a completion with %d", res);
			continue;
		}
		if (ent_in(e)->opcode == FUSE_READ)
			usleep((useconds_t)(rand() % 300));
		ent_answer_well(&s, e);
		if (commit(&s, e))
			return FAILED("commit: %s", strerror(errno));
	}
	pthread_join(user, NULL);
	if (r.why)
		return r.why;
	note("release-race: %d opens, %d releases", atomic_load(&s.opens),
	     atomic_load(&s.releases));
	srv_stop(&s);
	return NULL;
}

/* close() in another thread, which must return within 5 s. */
static const char *close_bounded(int fd)
{
	struct call c = { .fd = fd };

	call_start(&c, call_close);
	return call_returned(&c, 5000) ? NULL : FAILED("the close did not return");
}

static void *close_cuse(void *arg)
{
	close(*(int *)arg);
	return NULL;
}

static const char *attack_commit_abort(void)
{
	int answered = 0, failed = 0;

	for (int round = 0; round < 50; round++) {
		static struct srv s;
		pthread_t closer;
		struct call c;
		struct ent *e;
		int fd, cuse;
		char name[24];
		const char *why;

		/*
		 * A name of its own: the last round's device may still exist
		 * while its ring's exit work cancels (CUSE_INIT with a name in
		 * use fails, and the connection is aborted)
		 */
		snprintf(name, sizeof(name), "cu-abort%d", round);
		why = open_held(&s, name, &c, &fd, &e);
		if (why)
			return why;
		ent_answer_well(&s, e);
		/* /dev/cuse's descriptor closes as the commit goes in, then the ring */
		cuse = s.cuse;
		if (pthread_create(&closer, NULL, close_cuse, &cuse))
			return FAILED("pthread_create");
		commit(&s, e);
		pthread_join(closer, NULL);
		s.cuse = -1;
		ring_close(&s);
		if (!call_returned(&c, 5000))
			return FAILED("round %d: the read did not return", round);
		if (c.ret == 1)
			answered++;
		else
			failed++;
		srv_stop(&s);
		/*
		 * Not from this thread, the ring's: a FUSE_RELEASE that met an
		 * entry not yet cancelled goes to the ring through this task's
		 * task work, which a task waiting for the answer never runs.
		 */
		why = close_bounded(fd);
		if (why)
			return FAILED("round %d: %s", round, why);
	}
	note("commit-abort: 50 rounds, %d reads answered, %d failed", answered, failed);
	return NULL;
}

/* ---- the driver ---- */

static const struct guest_attack attacks[] = {
	{ "unknown-id", attack_unknown_id },
	{ "stale-id", attack_stale_id },
	{ "wrong-queue", attack_wrong_queue },
	{ "sizes", attack_sizes },
	{ "bad-register", attack_bad_register },
	{ "ring-closed", attack_ring_closed },
	{ "cuse-closed", attack_cuse_closed },
	{ "killed", attack_killed },
	{ "release-race", attack_release_race },
	{ "commit-abort", attack_commit_abort },
	{ "int-bit", attack_int_bit },
};

/*
 * --floor N: no attack, a measurement (bench/run-bench's "icount" boot runs
 * it under -icount 0, where the guest's clock counts instructions): N
 * 1-byte reads of a device whose server answers at once, through the
 * ring, then through read() and writev() of /dev/cuse (a server that did
 * not take CUSE_OVER_IO_URING), in a reader process of their own.  Prints
 * the guest's nanoseconds per read of each.
 */
static void floor_reads(const char *path, int n, int report)
{
	char byte;
	int fd = open(path, O_RDWR | O_CLOEXEC);
	double t0 = now_s();

	for (int i = 0; fd >= 0 && i < n; i++)
		if (read(fd, &byte, 1) != 1)
			_exit(1);
	t0 = now_s() - t0;
	_exit(fd >= 0 && write(report, &t0, sizeof(t0)) == sizeof(t0) ? 0 : 1);
}

/* The reader's time, serving s over the ring or, with legacy, read(). */
static double floor_serve(struct srv *s, int n, bool legacy)
{
	static char buf[BUF_SIZE];
	const struct fuse_in_header *in = (const void *)buf;
	struct fuse_open_out open_out = { .open_flags = FOPEN_NONSEEKABLE };
	struct pollfd pfd;
	int pipefd[2], res;
	double t = -1;
	pid_t reader;
	struct ent *e;

	if (pipe2(pipefd, O_CLOEXEC))
		fail("pipe");
	reader = fork();
	if (reader == 0)
		floor_reads(s->path, n, pipefd[1]);
	close(pipefd[1]);
	pfd = (struct pollfd){ .fd = pipefd[0], .events = POLLIN };
	/*
	 * The ring's loop commits each answer and waits for the next request
	 * in one io_uring_enter(), as a server would; it serves the open, the
	 * n reads and the release.
	 */
	for (int served = 1; !legacy; served++) {
		e = next_req(s, served == 1 ? 5000 : 0, &res, NULL);
		if (!e)
			break;
		ent_answer_well(s, e);
		if (served == n + 2) {
			commit(s, e);
			break;
		}
		submit_wait(s, CU_CMD_COMMIT, e->iov, e->qid, e->hdr.ent.commit_id,
			    (uint64_t)(e - s->ents), 1);
	}
	for (int served = 1; legacy && served <= n + 2; served++) {
		if (read(s->cuse, buf, sizeof(buf)) < (ssize_t)sizeof(*in))
			break;
		if (in->opcode == FUSE_OPEN)
			reply(s->cuse, in->unique, 0, &open_out, sizeof(open_out));
		else if (in->opcode == FUSE_READ)
			reply(s->cuse, in->unique, 0, "r", 1);
		else
			reply(s->cuse, in->unique, 0, NULL, 0);
	}
	if (poll(&pfd, 1, 5000) != 1 || read(pipefd[0], &t, sizeof(t)) != sizeof(t))
		t = -1;
	close(pipefd[0]);
	waitpid(reader, NULL, 0);
	return t;
}

static int floor_main(int n)
{
	static struct srv s;
	const char *why = srv_start(&s, "cu-floor");
	double ring, legacy;

	if (why)
		fail("%s", why);
	ring = floor_serve(&s, n, false);
	srv_stop(&s);
	why = srv_start_ring(&s, "cu-floor-legacy", false);
	if (why)
		fail("%s", why);
	legacy = floor_serve(&s, n, true);
	srv_stop(&s);
	printf("FLOOR reads=%d ring_ns=%.0f legacy_ns=%.0f\n", n, ring * 1e9 / n,
	       legacy * 1e9 / n);
	return ring < 0 || legacy < 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--floor") == 0)
		return floor_main(atoi(argv[2]));
	return guest_attack_main("uring-attack", attacks, sizeof(attacks) / sizeof(attacks[0]), argc, argv,
				 ATTACK_S);
}
