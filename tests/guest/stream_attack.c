// SPDX-License-Identifier: MIT
/*
 * A hostile CUSE server against FUSE_NOTIFY_STREAM_DATA
 * (kernel-patches/stream-data, issue 41 item 4) and against the writes the
 * kernel takes (CUSE_STREAM_WRITE, kernel-patches/stream-write, issue 41
 * item 2): the attacks the series' selftests (cuse_stream_test, cuse_data.*
 * and cuse_write.*) do not make.  No pilotd: this program is the server, on
 * /dev/cuse, without libfuse.
 *
 * Usage: stream-attack [ATTACK]...   (none: all of them)
 *
 *   abort       two read()s of a file that wait for a push (FOPEN_STREAM_DATA)
 *               when the server dies: they return (ENOTCONN), not wait on
 *   ring        1 MiB pushed in random sizes (1..4096, again after ENOSPC)
 *               and read in random sizes, many into a buffer whose end is
 *               unmapped (a short copy): every byte once, in order
 *   two-readers the same, two threads reading one file: every byte once
 *   open-fail   the server pushes for the kh of a FUSE_OPEN and then fails
 *               the open, 3000 times: each push taken or refused cleanly,
 *               the open fails, the kh is unknown afterwards, and the
 *               files' buffers are freed (MemAvailable)
 *   other-conn  a second server pushes for the first one's kh: ENOENT, and
 *               the first file reads nothing
 *   file-cost   what an open file costs the kernel's kmalloc caches, with
 *               and without the notification: the buffer at most 4096 +
 *               1024 bytes (printed)
 *   not-taken   pushes before CUSE_INIT's answer and on a connection that
 *               did not take CUSE_STREAM_DATA: EINVAL
 *   held-release a push while the file's FUSE_RELEASE waits unanswered in
 *               the server: ENOENT at once; the release ends when answered
 *   efault      read() into a bad address fails with EFAULT, a readv()
 *               whose second part is bad returns the first: no byte lost
 *   splice      splice() from the device fails and leaves the bytes; a
 *               push spliced into /dev/cuse from a pipe lands
 *   uring-close an io_uring poll holds a closed file's last reference; a
 *               push completes it: the push returns at once (the release
 *               runs in the submitter's task, not in the server's write())
 *   uring-read  an io_uring read of pushed bytes; one that waits for a push
 *               when its process exits: the exit cancels it, nothing hangs
 *
 * Take-backs (tb-*, FUSE_NOTIFY_STREAM_RETRIEVE, stream-data's patch 3):
 *   tb-invalid  unknown khs, another connection's kh, a released file's:
 *               ENOENT; a short or long notification and one on a
 *               connection that declined CUSE_STREAM_DATA: EINVAL; the
 *               file's bytes stay
 *   tb-read-race 256 KiB pushed in random sizes, two threads reading it in
 *               random sizes (some into a buffer whose end is unmapped),
 *               a take-back after every few pushes: every byte read or
 *               taken back exactly once (each byte value counted)
 *   tb-release  a take-back whose reply the stopped server has not read
 *               when the file is closed: the release and the reply end,
 *               nothing hangs
 *   tb-many-files 256 files, each with 4096 bytes and a take-back the
 *               stopped server never reads; the server dies: every file
 *               reads its 4096 bytes back, then ENOTCONN
 *   tb-flood    20000 take-backs of one file as fast as they go: each
 *               taken (one reply each) or EBUSY, never anything else
 *
 * Writes (w-*): the server holds each FUSE_WRITE the kernel sends to drain a
 * file's buffer (a drain) and this program answers it, on its own
 * descriptor of the same /dev/cuse file, as it likes:
 *   w-sizes     answers of size 0 (the same bytes come again), larger than
 *               sent (EIO), cut short (EIO), an error (that error), to an
 *               unknown unique and twice (ENOENT to the server): each
 *               write() after fails once or goes on, and nothing hangs
 *   w-release   a writer killed while its close() waits for a held drain:
 *               its release waits for the answer, FUSE_RELEASE comes after
 *               it, and the bytes not sent are dropped
 *   w-aio-close an aio poll for POLLOUT holds a closed file's last
 *               reference while a full buffer's drain is held; the answer,
 *               written while the server is stopped, completes it and
 *               returns at once (the release runs from the worker's fput
 *               and waits for the server, not in the answer's write())
 *   w-race      300 rounds of open, write, close in two threads and a
 *               poller, the drains answered at once: every open released
 *   w-abort     a writer waiting for room, a tcdrain() and a close() when
 *               the server dies: all return
 *   w-hangup    POLLHUP pushed while a writer waits for room: it and every
 *               write() after fail with EIO; the held drain is answered
 *   w-declined-push the server declines the buffer at open and pushes
 *               events for the file right after, 200 times: its writes are
 *               requests, nothing breaks
 *   w-file-cost what an open file with the write buffer costs the kmalloc
 *               caches over one that declined it at open (printed)
 *   w-error-forever every drain answered with EIO, 200 writes: every other
 *               write fails once, no drain the kernel makes up, tcdrain()
 *               and close() return, FUSE_RELEASE comes
 *   w-zero-forever every drain answered at once with 0 (nothing taken): a
 *               close() ended by a signal, the release sends no more drains
 *   w-many-full 256 files, each with a full buffer and its drain held: the
 *               kernel sends max_background (12) drains at once, the next
 *               when one is answered; at most 4096 + 2048 bytes of kmalloc
 *               caches a file; the server dies: every close() returns at
 *               once; twice, and nothing left grows (a leak would)
 *   w-big       a write() of more than the buffer holds goes as the
 *               writer's own FUSE_WRITEs (4096 bytes each: max_write), held
 *               and answered here: above the size sent (EIO), short (that
 *               count), an error (once, nothing left behind), cut short
 *               (EIO), to an unknown unique (ENOENT, then it goes on, in
 *               order); after a held drain, only once it is answered; the
 *               server dies while one is held: write() fails, close()
 *               returns
 *
 * Each attack runs in a child with a deadline (ATTACK_S); one that does not
 * finish is reported as a hang and killed.  Prints "PASS name" or
 * "FAIL name: why" for each; exits 1 if any failed, or if the kernel's log
 * holds a warning, a bug or an oops.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/fuse.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guestlib.h"

/* The series' uapi (include/uapi/linux/fuse.h of the patched tree), which
 * the host's <linux/fuse.h> does not have. */
#define SD_NOTIFY_CODE 11	 /* FUSE_NOTIFY_STREAM_DATA */
#define SD_CUSE_FLAG   (1u << 2) /* CUSE_STREAM_DATA */
#define SD_FOPEN_FLAG  (1u << 9) /* FOPEN_STREAM_DATA */
#define SD_MAX	       4096	 /* FUSE_STREAM_DATA_MAX */
struct sd_out {
	uint64_t kh;
	uint32_t size;
	uint32_t padding;
};

/* The stream-write series' uapi */
#define SW_CUSE_FLAG	  (1u << 3)  /* CUSE_STREAM_WRITE */
#define SW_FOPEN_FLAG	  (1u << 10) /* FOPEN_STREAM_WRITE */
#define SW_MAX		  4096	     /* FUSE_STREAM_WRITE_MAX */
#define PE_CUSE_FLAG	  (1u << 1)  /* CUSE_POLL_EVENTS */
#define PE_NOTIFY_CODE	  10	     /* FUSE_NOTIFY_POLL_EVENTS */

/* The take-back's uapi (stream-data's patch 3) */
#define SR_NOTIFY_CODE 12 /* FUSE_NOTIFY_STREAM_RETRIEVE */
struct sr_out {
	uint64_t notify_unique;
	uint64_t kh;
};
struct sr_in {
	uint64_t kh;
	uint32_t size;
	uint32_t padding;
};

#define ATTACK_S 60
#define BUF_SIZE (FUSE_MIN_READ_BUFFER + 4096)

/* ---- a CUSE server ---- */

struct server_cfg {
	uint32_t open_flags;
	int open_error; /* FUSE_OPEN: reply this (0: success) */
	bool decline;	/* answer CUSE_INIT without CUSE_STREAM_DATA */
	bool push_before_open_reply;
	/* > 0: at FUSE_RELEASE, write a byte to held_fd and answer only
	 * once a byte comes on go_fd */
	int held_fd, go_fd;
	/* > 0: copy each FUSE_NOTIFY_REPLY, whole, to it (else drop it) */
	int taken_fd;
};

struct dev {
	int cuse; /* the parent's descriptor: it pushes on it */
	pid_t server;
	int reqs; /* the server reports each FUSE_OPEN's kh and push result */
	char path[64];
};

struct open_report {
	uint64_t kh;
	int push_err; /* push_before_open_reply: 0 or errno */
};

static int reply(int fd, uint64_t unique, int error, const void *arg, size_t len)
{
	struct fuse_out_header out = { .len = sizeof(out) + len, .error = error, .unique = unique };
	struct iovec iov[2] = { { &out, sizeof(out) }, { (void *)arg, len } };

	return writev(fd, iov, len ? 2 : 1) == (ssize_t)out.len ? 0 : -1;
}

static int push_hdr(int cuse, const struct sd_out *o, const void *data, size_t len)
{
	struct fuse_out_header oh = { .len = sizeof(oh) + sizeof(*o) + len,
				      .error = SD_NOTIFY_CODE };
	struct iovec iov[3] = { { &oh, sizeof(oh) },
				{ (void *)o, sizeof(*o) },
				{ (void *)data, len } };

	return writev(cuse, iov, len ? 3 : 2) == (ssize_t)oh.len ? 0 : -errno;
}

/* 0 or -errno */
static int push(int cuse, uint64_t kh, const void *data, uint32_t len)
{
	struct sd_out o = { .kh = kh, .size = len };

	return push_hdr(cuse, &o, data, len);
}

/* The server's next request into buf; the server ends with the connection. */
static void next_request(int fd, char *buf, size_t len)
{
	for (;;) {
		ssize_t n = read(fd, buf, len);

		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(struct fuse_in_header))
			_exit(0);
		return;
	}
}

static void serve(int fd, const struct server_cfg *cfg, int reqs)
{
	static char buf[BUF_SIZE];
	const struct fuse_in_header *in = (const void *)buf;
	const size_t kh_at = sizeof(*in) + sizeof(struct fuse_open_in);
	struct fuse_open_out open_out = { .open_flags = cfg->open_flags };
	struct fuse_poll_out poll_out = { 0 };

	for (;;) {
		struct open_report r = { 0 };
		int rc = 0;

		next_request(fd, buf, sizeof(buf));
		switch (in->opcode) {
		case FUSE_OPEN:
			if (in->len >= kh_at + sizeof(r.kh))
				memcpy(&r.kh, buf + kh_at, sizeof(r.kh));
			if (cfg->push_before_open_reply)
				r.push_err = -push(fd, r.kh, "opening", 7);
			if (write(reqs, &r, sizeof(r)) != sizeof(r))
				_exit(1);
			rc = cfg->open_error
				     ? reply(fd, in->unique, cfg->open_error, NULL, 0)
				     : reply(fd, in->unique, 0, &open_out, sizeof(open_out));
			break;
		case FUSE_READ: /* the fallback: end of file */
			rc = reply(fd, in->unique, 0, NULL, 0);
			break;
		case FUSE_POLL: rc = reply(fd, in->unique, 0, &poll_out, sizeof(poll_out)); break;
		case FUSE_INTERRUPT: break;
		case FUSE_NOTIFY_REPLY: /* a take-back: not answered */
			if (cfg->taken_fd > 0 && write(cfg->taken_fd, buf, in->len) != (ssize_t)in->len)
				_exit(1);
			break;
		case FUSE_RELEASE:
			if (cfg->held_fd > 0) {
				char c = 'R';

				if (write(cfg->held_fd, &c, 1) != 1 || read(cfg->go_fd, &c, 1) != 1)
					_exit(1);
			}
			rc = reply(fd, in->unique, 0, NULL, 0);
			break;
		default: rc = reply(fd, in->unique, -ENOSYS, NULL, 0); break;
		}
		if (rc)
			_exit(1);
	}
}

/*
 * Open /dev/cuse and answer CUSE_INIT for a device called name, taking
 * the flags in take; fails unless the kernel offered need (called
 * need_name).  Returns the descriptor; the node's path in path.
 */
static int cuse_register(const char *name, uint32_t need, const char *need_name, uint32_t take,
			 char *path, size_t path_len)
{
	static char buf[BUF_SIZE];
	const struct fuse_in_header *in = (const void *)buf;
	const struct cuse_init_in *init = (const void *)(in + 1);
	struct {
		struct cuse_init_out out;
		char info[64];
	} arg = { 0 };
	int cuse, len;

	cuse = open("/dev/cuse", O_RDWR | O_CLOEXEC);
	if (cuse < 0)
		fail("open /dev/cuse: %s", strerror(errno));
	if (read(cuse, buf, sizeof(buf)) < (ssize_t)(sizeof(*in) + sizeof(*init)) ||
	    in->opcode != CUSE_INIT)
		fail("no CUSE_INIT");
	if ((init->flags & need) != need)
		fail("the kernel does not offer %s: not the 7.3 with the series", need_name);
	snprintf(path, path_len, "/dev/%s", name);
	arg.out = (struct cuse_init_out){ .major = init->major,
					  .minor = init->minor,
					  .flags = take,
					  .max_read = 4096,
					  .max_write = 4096 };
	len = snprintf(arg.info, sizeof(arg.info), "DEVNAME=%s", name) + 1;
	if (reply(cuse, in->unique, 0, &arg, sizeof(arg.out) + (size_t)len))
		fail("CUSE_INIT reply: %s", strerror(errno));
	return cuse;
}

/* Open a device's node, which comes and goes with the registration. */
static int open_node(const char *path, int flags)
{
	int fd = -1;

	for (int i = 0; i < 500; i++) {
		fd = open(path, flags | O_CLOEXEC);
		if (fd >= 0 || (errno != ENOENT && errno != ENXIO && errno != ENODEV))
			break;
		usleep(10000);
	}
	return fd < 0 ? -errno : fd;
}

/*
 * Fork a server with a pipe to report on: in the server, returns 0 and
 * *reqs is the pipe's end to write; here, the server's pid and the end to
 * read.
 */
static pid_t fork_server(int *reqs)
{
	int pipefd[2];
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		fail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0)
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	close(pipefd[pid == 0 ? 0 : 1]);
	*reqs = pipefd[pid == 0 ? 1 : 0];
	return pid;
}

/* Register the device, taking CUSE_STREAM_DATA; fork its server. */
static void dev_start(struct dev *d, const char *name, const struct server_cfg *cfg)
{
	d->cuse = cuse_register(name, SD_CUSE_FLAG, "CUSE_STREAM_DATA",
				cfg->decline ? 0 : SD_CUSE_FLAG, d->path, sizeof(d->path));
	d->server = fork_server(&d->reqs);
	if (d->server == 0)
		serve(d->cuse, cfg, d->reqs);
}

/* Open the device (its node comes and goes with the registration); the kh. */
static int dev_open(struct dev *d, int flags, uint64_t *kh)
{
	struct open_report r;
	int fd = open_node(d->path, flags);

	if (fd < 0)
		return fd;
	if (read(d->reqs, &r, sizeof(r)) != sizeof(r))
		fail("the server did not report the open");
	if (kh && !r.kh)
		fail("FUSE_OPEN carries no kernel handle");
	if (kh)
		*kh = r.kh;
	return fd;
}

/* Kill and reap the server *server, if any: a server that dies. */
static void kill_server(pid_t *server)
{
	if (*server > 0) {
		kill(*server, SIGKILL);
		waitpid(*server, NULL, 0);
		*server = 0;
	}
}

static void dev_kill_server(struct dev *d)
{
	kill_server(&d->server);
}

static const struct server_cfg opt_in = { .open_flags = FOPEN_NONSEEKABLE | SD_FOPEN_FLAG };

/* ---- the attacks: each returns NULL (pass) or why it failed ---- */

#define FAILED attack_failed

struct blocked {
	int fd;
	_Atomic int tid;
	int result; /* bytes, or -errno */
};

static void *blocked_read(void *arg)
{
	struct blocked *b = arg;
	char buf[16];
	ssize_t n;

	atomic_store(&b->tid, (int)syscall(SYS_gettid));
	n = read(b->fd, buf, sizeof(buf));
	b->result = n < 0 ? -errno : (int)n;
	return NULL;
}

/*
 * Two reads of one file wait for a push (one in the wait, the other for the
 * buffer's lock) when the server dies: both return ENOTCONN at once.
 */
static const char *attack_abort(void)
{
	struct blocked r[2];
	pthread_t t[2];
	struct dev d;
	uint64_t kh;
	double t0;
	int fd;

	dev_start(&d, "sd-abort", &opt_in);
	fd = dev_open(&d, O_RDONLY, &kh);
	if (fd < 0)
		return FAILED("open: %s", strerror(-fd));
	for (int i = 0; i < 2; i++) {
		r[i] = (struct blocked){ .fd = fd };
		pthread_create(&t[i], NULL, blocked_read, &r[i]);
		while (!atomic_load(&r[i].tid))
			usleep(1000);
		wait_sleeping(getpid(), atomic_load(&r[i].tid));
	}
	/* the server dies: the connection ends when its last /dev/cuse closes */
	close(d.cuse);
	t0 = now_s();
	dev_kill_server(&d);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	if (now_s() - t0 > 15) /* milliseconds; a loose guard under TCG on a loaded host */
		return FAILED("the reads returned %.1f s after the server died", now_s() - t0);
	for (int i = 0; i < 2; i++)
		if (r[i].result != -ENOTCONN)
			return FAILED("read %d returned %d, expected -ENOTCONN", i, r[i].result);
	close(fd);
	return NULL;
}

/* ring: the pusher */
struct pusher {
	int cuse;
	uint64_t kh;
	size_t total;
	unsigned int seed;
	int err;
	unsigned long enospc;
};

static void *push_counter(void *arg)
{
	struct pusher *p = arg;
	unsigned char buf[SD_MAX];
	size_t sent = 0;

	while (sent < p->total) {
		size_t n = 1 + (size_t)rand_r(&p->seed) % SD_MAX;
		int err;

		if (n > p->total - sent)
			n = p->total - sent;
		for (size_t i = 0; i < n; i++)
			buf[i] = (unsigned char)((sent + i) % 251);
		do {
			err = push(p->cuse, p->kh, buf, (uint32_t)n);
			if (err == -ENOSPC) {
				p->enospc++;
				usleep(100);
			}
		} while (err == -ENOSPC);
		if (err) {
			p->err = err;
			return NULL;
		}
		sent += n;
	}
	return NULL;
}

/* A buffer of two pages whose second is not mapped: reads near its end are short. */
static unsigned char *guarded_buffer(size_t *room)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *m = mmap(NULL, (size_t)page * 3, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		fail("mmap: %s", strerror(errno));
	mprotect(m + page * 2, (size_t)page, PROT_NONE);
	*room = (size_t)page * 2;
	return m;
}

#define RING_TOTAL (1u << 20)

static const char *attack_ring(void)
{
	struct dev d;
	struct pusher p = { .total = RING_TOTAL, .seed = 41 };
	unsigned int seed = 7;
	size_t got = 0, room;
	unsigned char *buf = guarded_buffer(&room);
	unsigned long short_reads = 0, faults = 0;
	pthread_t t;
	int fd;

	dev_start(&d, "sd-ring", &opt_in);
	fd = dev_open(&d, O_RDONLY, &p.kh);
	if (fd < 0)
		return FAILED("open: %s", strerror(-fd));
	p.cuse = d.cuse;
	pthread_create(&t, NULL, push_counter, &p);
	while (got < RING_TOTAL) {
		size_t want = 1 + (size_t)rand_r(&seed) % 8192;
		/* one read in four ends at the unmapped page */
		size_t at = rand_r(&seed) % 4 ? 0 : room - (1 + (size_t)rand_r(&seed) % want);
		ssize_t n = read(fd, buf + at, want);

		if (n < 0 && errno == EFAULT) {
			faults++;
			continue;
		}
		if (n <= 0)
			return FAILED("read returned %zd (%s) after %zu bytes", n,
				      n < 0 ? strerror(errno) : "end of file", got);
		if ((size_t)n < want)
			short_reads++;
		if (at && (size_t)n > room - at)
			return FAILED("read wrote %zd bytes into %zu of mapped room", n, room - at);
		for (ssize_t i = 0; i < n; i++)
			if (buf[at + (size_t)i] != (unsigned char)((got + (size_t)i) % 251))
				return FAILED("byte %zu is %u, expected %u: lost, doubled or "
					      "out of order",
					      got + (size_t)i, buf[at + (size_t)i],
					      (unsigned)((got + (size_t)i) % 251));
		got += (size_t)n;
	}
	pthread_join(t, NULL);
	if (p.err)
		return FAILED("a push failed: %s", strerror(-p.err));
	note("ring: %u bytes in order; %lu pushes refused for room, %lu short reads, "
	     "%lu reads at the unmapped page with nothing copied",
	     RING_TOTAL, p.enospc, short_reads, faults);
	close(fd);
	dev_kill_server(&d);
	close(d.cuse);
	return NULL;
}

struct reader {
	int fd;
	unsigned int seed;
	size_t got;
	atomic_size_t *total;
	const char *err;
	unsigned long hist[251];
};

static void *read_some(void *arg)
{
	struct reader *r = arg;
	unsigned char buf[8192];

	while (atomic_load(r->total) < RING_TOTAL) {
		struct pollfd pf = { .fd = r->fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pf, 1, 100) < 0) {
			r->err = "poll failed";
			return NULL;
		}
		n = read(r->fd, buf, 1 + (size_t)rand_r(&r->seed) % sizeof(buf));
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n <= 0) {
			r->err = "read failed or end of file";
			return NULL;
		}
		/* within one read the bytes follow each other */
		for (ssize_t i = 1; i < n; i++)
			if (buf[i] != (buf[i - 1] + 1) % 251) {
				r->err = "a read's bytes do not follow each other";
				return NULL;
			}
		for (ssize_t i = 0; i < n; i++)
			r->hist[buf[i]]++;
		r->got += (size_t)n;
		atomic_fetch_add(r->total, (size_t)n);
	}
	return NULL;
}

static const char *attack_two_readers(void)
{
	struct dev d;
	struct pusher p = { .total = RING_TOTAL, .seed = 43 };
	atomic_size_t total = 0;
	struct reader r[2];
	pthread_t t, rt[2];
	uint64_t kh;
	int fd;

	dev_start(&d, "sd-two", &opt_in);
	fd = dev_open(&d, O_RDONLY | O_NONBLOCK, &kh);
	if (fd < 0)
		return FAILED("open: %s", strerror(-fd));
	p.cuse = d.cuse;
	p.kh = kh;
	for (int i = 0; i < 2; i++) {
		r[i] = (struct reader){ .fd = i ? dup(fd) : fd,
					.seed = 100u + (unsigned)i,
					.total = &total };
		pthread_create(&rt[i], NULL, read_some, &r[i]);
	}
	pthread_create(&t, NULL, push_counter, &p);
	pthread_join(t, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(rt[i], NULL);
	if (p.err)
		return FAILED("a push failed: %s", strerror(-p.err));
	for (int i = 0; i < 2; i++)
		if (r[i].err)
			return FAILED("reader %d: %s", i, r[i].err);
	if (r[0].got + r[1].got != RING_TOTAL)
		return FAILED("%zu + %zu bytes read of %u pushed", r[0].got, r[1].got, RING_TOTAL);
	for (unsigned v = 0; v < 251; v++) {
		unsigned long want = RING_TOTAL / 251 + (v < RING_TOTAL % 251);

		if (r[0].hist[v] + r[1].hist[v] != want)
			return FAILED("value %u read %lu times, pushed %lu", v,
				      r[0].hist[v] + r[1].hist[v], want);
	}
	note("two-readers: %zu + %zu bytes, every byte once", r[0].got, r[1].got);
	return NULL;
}

static long mem_available_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

#define OPEN_FAIL_ROUNDS 3000

static const char *attack_open_fail(void)
{
	static const struct server_cfg cfg = { .open_flags = SD_FOPEN_FLAG,
					       .open_error = -EIO,
					       .push_before_open_reply = true };
	struct dev d;
	unsigned long taken = 0;
	long before, after;
	uint64_t kh = 0;
	int err;

	dev_start(&d, "sd-openfail", &cfg);
	/* the node appears with the registration: wait for it */
	for (int i = 0; i < 500 && access(d.path, F_OK); i++)
		usleep(10000);
	before = mem_available_kb();
	for (int i = 0; i < OPEN_FAIL_ROUNDS; i++) {
		struct open_report r;
		int fd = open(d.path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0)
			return FAILED("open %d succeeded; the server failed it", i);
		if (errno == ENXIO && i == 0) { /* the device's window at registration */
			i--;
			usleep(10000);
			continue;
		}
		if (errno != EIO)
			return FAILED("open %d: %s, expected EIO", i, strerror(errno));
		if (read(d.reqs, &r, sizeof(r)) != sizeof(r))
			return FAILED("the server did not report open %d", i);
		if (r.push_err && r.push_err != ENOENT)
			return FAILED("the push during open %d failed: %s", i,
				      strerror(r.push_err));
		taken += !r.push_err;
		kh = r.kh;
	}
	after = mem_available_kb();
	err = push(d.cuse, kh, "late", 4);
	if (err != -ENOENT)
		return FAILED("a push for the failed open's kh: %s, expected ENOENT",
			      err ? strerror(-err) : "taken");
	note("open-fail: %d opens failed after a push (%lu pushes taken); MemAvailable "
	     "%ld kB before, %ld kB after",
	     OPEN_FAIL_ROUNDS, taken, before, after);
	if (taken == 0)
		return FAILED("no push during an open was taken: the attack did not reach a "
			      "buffer");
	/* a leaked buffer each would be 12 MB (4160 bytes a file, file-cost): allow 3 MB */
	if (before - after > 3000)
		return FAILED("MemAvailable fell by %ld kB in %d failed opens", before - after,
			      OPEN_FAIL_ROUNDS);
	dev_kill_server(&d);
	close(d.cuse);
	return NULL;
}

/* The bytes the slab caches named kmalloc-* hold (/proc/slabinfo), or -1. */
static long kmalloc_bytes(void)
{
	FILE *f = fopen("/proc/slabinfo", "r");
	char line[512], name[64];
	long active, total = -1, objsize;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld %*d %ld", name, &active, &objsize) == 3 &&
		    strncmp(name, "kmalloc-", 8) == 0 && strchr(name + 8, '-') == NULL)
			total = (total < 0 ? 0 : total) + active * objsize;
	if (f)
		fclose(f);
	return total;
}

#define COST_FILES 256

/* The kmalloc bytes an open file of a device of cfg takes, over COST_FILES. */
static long file_cost(const struct server_cfg *cfg, const char *name)
{
	static int fds[COST_FILES];
	long before, after;
	struct dev d;

	dev_start(&d, name, cfg);
	fds[0] = dev_open(&d, O_RDONLY, NULL);
	if (fds[0] < 0)
		fail("open %s: %s", name, strerror(-fds[0]));
	before = kmalloc_bytes();
	for (int i = 1; i < COST_FILES; i++) {
		fds[i] = dev_open(&d, O_RDONLY, NULL);
		if (fds[i] < 0)
			fail("open %d of %s: %s", i, name, strerror(-fds[i]));
	}
	after = kmalloc_bytes();
	for (int i = 0; i < COST_FILES; i++)
		close(fds[i]);
	dev_kill_server(&d);
	close(d.cuse);
	return (after - before) / (COST_FILES - 1);
}

/*
 * What an open file of a connection that took the notification costs the
 * kernel, against one of a connection that did not: the series allocates a
 * ring of FUSE_STREAM_DATA_MAX (4096) bytes with each file (kmalloc-4k) and
 * apart from it its lock and indices (struct fuse_stream_data, kmalloc-64).
 * The bound asserted is 4096 + 1024 a file over what a file of a connection
 * that declined CUSE_STREAM_DATA costs, in the kmalloc caches: the ring in
 * the struct, one kmalloc-8k object (7734 bytes a file measured), fails it.
 * The figures are printed.
 */
static const char *attack_file_cost(void)
{
	static const struct server_cfg declined = { .open_flags = FOPEN_NONSEEKABLE,
						    .decline = true };
	long plain, taken;

	if (kmalloc_bytes() < 0)
		return NULL; /* no /proc/slabinfo here: nothing to measure */
	plain = file_cost(&declined, "sd-cost-plain");
	taken = file_cost(&opt_in, "sd-cost");
	note("file-cost: an open file takes %ld bytes of the kmalloc caches, %ld without "
	     "CUSE_STREAM_DATA: the buffer costs %ld",
	     taken, plain, taken - plain);
	if (taken - plain > SD_MAX + 1024)
		return FAILED("an open file costs %ld bytes of kmalloc, %ld more than without "
			      "CUSE_STREAM_DATA", taken, taken - plain);
	return NULL;
}

static void *close_fd(void *arg)
{
	close(*(int *)arg);
	return NULL;
}

/*
 * A push while the file's release waits for the server (FUSE_RELEASE read,
 * not answered): the kernel forgot the file before it sent the release, so
 * the push fails with ENOENT at once, and the release completes after.
 */
static const char *attack_held_release(void)
{
	int held[2], go[2], fd, err;
	struct server_cfg cfg = opt_in;
	struct dev d;
	pthread_t t;
	uint64_t kh;
	char c;
	struct pollfd p;

	if (pipe(held) || pipe(go))
		return FAILED("pipe: %s", strerror(errno));
	cfg.held_fd = held[1];
	cfg.go_fd = go[0];
	dev_start(&d, "sd-held", &cfg);
	fd = dev_open(&d, O_RDONLY, &kh);
	if (fd < 0)
		return FAILED("open: %s", strerror(-fd));
	if ((err = push(d.cuse, kh, "before", 6)))
		return FAILED("push before the close: %s", strerror(-err));
	pthread_create(&t, NULL, close_fd, &fd);
	p = (struct pollfd){ .fd = held[0], .events = POLLIN };
	if (poll(&p, 1, 5000) != 1 || read(held[0], &c, 1) != 1)
		return FAILED("the server saw no FUSE_RELEASE within 5 s of the close");
	err = push(d.cuse, kh, "during", 6);
	if (err != -ENOENT)
		return FAILED("a push while the release waits: %s, expected ENOENT",
			      err ? strerror(-err) : "taken");
	if (write(go[1], "g", 1) != 1)
		return FAILED("write: %s", strerror(errno));
	pthread_join(t, NULL);
	err = push(d.cuse, kh, "after", 5);
	if (err != -ENOENT)
		return FAILED("a push after the release: %s, expected ENOENT",
			      err ? strerror(-err) : "taken");
	dev_kill_server(&d);
	close(d.cuse);
	return NULL;
}

/*
 * Pushes before CUSE_INIT is answered, and on a connection whose server did
 * not take CUSE_STREAM_DATA: EINVAL, and no file reads them.
 */
static const char *attack_not_taken(void)
{
	static char buf[BUF_SIZE];
	const struct fuse_in_header *in = (const void *)buf;
	const struct cuse_init_in *init = (const void *)(in + 1);
	struct {
		struct cuse_init_out out;
		char info[32];
	} arg = { 0 };
	int cuse = open("/dev/cuse", O_RDWR | O_CLOEXEC), err, len;

	if (cuse < 0)
		return FAILED("open /dev/cuse: %s", strerror(errno));
	err = push(cuse, 1, "early", 5);
	if (err != -EINVAL)
		return FAILED("a push before CUSE_INIT was even read: %s, expected EINVAL",
			      err ? strerror(-err) : "taken");
	if (read(cuse, buf, sizeof(buf)) < (ssize_t)(sizeof(*in) + sizeof(*init)))
		return FAILED("no CUSE_INIT");
	err = push(cuse, 1, "early", 5);
	if (err != -EINVAL)
		return FAILED("a push before CUSE_INIT was answered: %s, expected EINVAL",
			      err ? strerror(-err) : "taken");
	arg.out = (struct cuse_init_out){
		.major = init->major, .minor = init->minor, .max_read = 4096, .max_write = 4096
	};
	len = snprintf(arg.info, sizeof(arg.info), "DEVNAME=sd-declined") + 1;
	if (reply(cuse, in->unique, 0, &arg, sizeof(arg.out) + (size_t)len))
		return FAILED("CUSE_INIT reply: %s", strerror(errno));
	for (uint64_t kh = 0; kh < 4; kh++) {
		err = push(cuse, kh, "late", 4);
		if (err != -EINVAL)
			return FAILED("a push on a connection that did not take the "
				      "notification: %s, expected EINVAL",
				      err ? strerror(-err) : "taken");
	}
	close(cuse);
	return NULL;
}

static const char *attack_other_conn(void)
{
	struct dev a, b;
	uint64_t kh;
	char c;
	int fd, err;

	dev_start(&a, "sd-conn-a", &opt_in);
	dev_start(&b, "sd-conn-b", &opt_in);
	fd = dev_open(&a, O_RDONLY | O_NONBLOCK, &kh);
	if (fd < 0)
		return FAILED("open: %s", strerror(-fd));
	err = push(b.cuse, kh, "x", 1);
	if (err != -ENOENT)
		return FAILED("a push on the other connection for kh %llu: %s, expected ENOENT",
			      (unsigned long long)kh, err ? strerror(-err) : "taken");
	if (read(fd, &c, 1) != -1 || errno != EAGAIN)
		return FAILED("the file read what the other server pushed");
	close(fd);
	dev_kill_server(&a);
	dev_kill_server(&b);
	close(a.cuse);
	close(b.cuse);
	return NULL;
}

static const char *check_reads(int fd, const char *want, size_t len)
{
	char buf[256];
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n <= 0)
			return FAILED("read after %zu of %zu bytes: %zd (%s)", got, len, n,
				      n < 0 ? strerror(errno) : "end of file");
		got += (size_t)n;
	}
	if (memcmp(buf, want, len))
		return FAILED("read '%.*s', pushed '%.*s'", (int)len, buf, (int)len, want);
	return NULL;
}

/* an address no process maps (the compiler cannot see it is bad) */
static void *volatile bad_address = (void *)16;

static const char *attack_efault(void)
{
	static const char data[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	size_t len = sizeof(data) - 1;
	char first[10];
	struct iovec iov[2] = { { first, sizeof(first) }, { bad_address, 20 } };
	const char *bad;
	struct dev d;
	uint64_t kh;
	ssize_t n;
	int fd, err;

	dev_start(&d, "sd-efault", &opt_in);
	fd = dev_open(&d, O_RDONLY, &kh);
	if (fd < 0)
		return FAILED("open: %s", strerror(-fd));
	if ((err = push(d.cuse, kh, data, (uint32_t)len)))
		return FAILED("push: %s", strerror(-err));
	n = read(fd, bad_address, 8);
	if (n != -1 || errno != EFAULT)
		return FAILED("read into a bad address: %zd (%s), expected EFAULT", n,
			      n < 0 ? strerror(errno) : "");
	n = readv(fd, iov, 2);
	if (n != (ssize_t)sizeof(first) || memcmp(first, data, sizeof(first)))
		return FAILED("readv whose second part is bad: %zd, expected %zu bytes", n,
			      sizeof(first));
	if ((bad = check_reads(fd, data + sizeof(first), len - sizeof(first))))
		return bad;
	close(fd);
	dev_kill_server(&d);
	close(d.cuse);
	return NULL;
}

static const char *attack_splice(void)
{
	static const char data[] = "spliced into the kernel";
	const char *bad;
	struct dev d;
	uint64_t kh;
	int fd, pfd[2], err;
	ssize_t n;

	dev_start(&d, "sd-splice", &opt_in);
	fd = dev_open(&d, O_RDONLY, &kh);
	if (fd < 0)
		return FAILED("open: %s", strerror(-fd));
	if ((err = push(d.cuse, kh, "abc", 3)))
		return FAILED("push: %s", strerror(-err));
	if (pipe(pfd))
		return FAILED("pipe: %s", strerror(errno));
	n = splice(fd, NULL, pfd[1], NULL, 3, SPLICE_F_NONBLOCK);
	if (n > 0) {
		char got[3];

		/* a splice that reads must read the pushed bytes */
		if (read(pfd[0], got, 3) != 3 || memcmp(got, "abc", 3))
			return FAILED("splice from the device gave other bytes");
	} else if ((bad = check_reads(fd, "abc", 3))) {
		return bad;
	}
	note("splice from the device: %zd (%s)", n, n < 0 ? strerror(errno) : "bytes");

	/* the server splices a whole push from a pipe into /dev/cuse */
	{
		struct fuse_out_header oh = { .len = sizeof(oh) + sizeof(struct sd_out) +
						     sizeof(data) - 1,
					      .error = SD_NOTIFY_CODE };
		struct sd_out o = { .kh = kh, .size = sizeof(data) - 1 };

		if (write(pfd[1], &oh, sizeof(oh)) != sizeof(oh) ||
		    write(pfd[1], &o, sizeof(o)) != sizeof(o) ||
		    write(pfd[1], data, sizeof(data) - 1) != sizeof(data) - 1)
			return FAILED("write to the pipe: %s", strerror(errno));
		n = splice(pfd[0], NULL, d.cuse, NULL, oh.len, 0);
		if (n != (ssize_t)oh.len)
			return FAILED("splice of a push into /dev/cuse: %zd (%s)", n,
				      n < 0 ? strerror(errno) : "short");
		if ((bad = check_reads(fd, data, sizeof(data) - 1)))
			return bad;
	}
	close(fd);
	dev_kill_server(&d);
	close(d.cuse);
	return NULL;
}

static const char *attack_uring_close(void)
{
	struct guest_uring *ring;
	struct dev d;
	uint64_t kh;
	int fd, err, status;
	double t0;
	pid_t child;

	dev_start(&d, "sd-uring", &opt_in);
	fd = dev_open(&d, O_RDONLY, &kh);
	if (fd < 0)
		return FAILED("open: %s", strerror(-fd));
	ring = guest_uring_submit(&(struct io_uring_sqe){ .opcode = IORING_OP_POLL_ADD,
							  .fd = fd,
							  .poll32_events = POLLIN },
				  &err);
	if (!ring)
		return FAILED("io_uring poll: %s", strerror(-err));
	close(fd); /* the poll holds the file's last reference */
	/* the push, from a child that must come back; a hang is the bug */
	t0 = now_s();
	child = fork();
	if (child == 0) {
		alarm(20);
		_exit(push(d.cuse, kh, "wake", 4) == 0 ? 0 : 2);
	}
	waitpid(child, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return FAILED("the push for a file held by an io_uring poll: %s",
			      WIFEXITED(status) ? "failed" : "did not return in 20 s");
	if (now_s() - t0 > 15) /* milliseconds; a loose guard */
		return FAILED("the push took %.1f s", now_s() - t0);
	/* the completion: POLLIN, and the ring's end releases the file */
	err = guest_uring_result(ring);
	if (err < 0 || !(err & POLLIN))
		return FAILED("the poll completed with %d, expected POLLIN", err);
	guest_uring_close(ring);
	dev_kill_server(&d);
	close(d.cuse);
	return NULL;
}

/*
 * io_uring reads: one of pushed bytes; then one that waits for a push
 * (FOPEN_STREAM_DATA, an empty buffer) when its process exits: the exit
 * ends it, nothing hangs.
 */
static const char *attack_uring_read(void)
{
	static char buf[64];
	struct io_uring_sqe rd = {
		.opcode = IORING_OP_READ, .addr = (uintptr_t)buf, .len = sizeof(buf), .off = -1ull
	};
	struct guest_uring *ring;
	struct dev d;
	uint64_t kh;
	int fd, err, status;
	double t0;
	pid_t child;

	dev_start(&d, "sd-uring-read", &opt_in);
	fd = dev_open(&d, O_RDONLY, &kh);
	if (fd < 0)
		return FAILED("open: %s", strerror(-fd));
	if ((err = push(d.cuse, kh, "uring", 5)))
		return FAILED("push: %s", strerror(-err));
	rd.fd = fd;
	ring = guest_uring_submit(&rd, &err);
	if (!ring)
		return FAILED("io_uring read: %s", strerror(-err));
	err = guest_uring_result(ring);
	if (err != 5 || memcmp(buf, "uring", 5))
		return FAILED("io_uring read of pushed bytes: %d", err);
	guest_uring_close(ring);

	child = fork();
	if (child == 0) {
		if (!guest_uring_submit(&rd, &err))
			_exit(2);
		usleep(300000); /* the read waits (io-wq) */
		_exit(0);	/* and the exit cancels it */
	}
	t0 = now_s();
	while (waitpid(child, &status, WNOHANG) == 0) {
		if (now_s() - t0 > 10) {
			kill(child, SIGKILL);
			return FAILED("a process with a waiting io_uring read did not exit in "
				      "10 s (state %c)",
				      task_state(child, child));
		}
		usleep(20000);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return FAILED("the io_uring child ended with 0x%x", status);
	close(fd);
	dev_kill_server(&d);
	close(d.cuse);
	return NULL;
}


/* ---- writes taken by the kernel: a server that holds the drains ---- */

/* What the write server reports of a request */
struct wreq {
	uint32_t opcode;
	uint32_t size;
	uint64_t unique;
	uint64_t kh;
	char data[8];
};

struct wdev {
	int cuse; /* the attacker's descriptor: it answers the drains on it */
	pid_t server;
	int reqs;
	char path[64];
};

/*
 * Answer every request but FUSE_WRITE on fd, reporting FUSE_OPEN (with its
 * kh), FUSE_WRITE and FUSE_RELEASE on reqs; FUSE_WRITE is left to the
 * attacker, or answered whole at once with auto_answer.
 */
/* FUSE_NOTIFY_POLL_EVENTS of revents for kh, all of them to wake for. */
static int push_events(int cuse, uint64_t kh, uint32_t revents)
{
	struct {
		uint64_t kh;
		uint32_t revents, wake;
	} ev = { .kh = kh, .revents = revents, .wake = revents };
	struct fuse_out_header oh = { .len = sizeof(oh) + sizeof(ev), .error = PE_NOTIFY_CODE };
	struct iovec iov[2] = { { &oh, sizeof(oh) }, { &ev, sizeof(ev) } };

	return writev(cuse, iov, 2) == (ssize_t)oh.len ? 0 : -errno;
}

/* wserve()'s open_flags with this: push events for each file right after its open */
#define W_PUSH_AFTER_OPEN (1u << 31)

static void wserve(int fd, uint32_t open_flags, bool auto_answer, int reqs)
{
	static char buf[BUF_SIZE];
	const struct fuse_in_header *in = (const void *)buf;
	const struct fuse_write_in *win = (const void *)(in + 1);
	const size_t kh_at = sizeof(*in) + sizeof(struct fuse_open_in);
	struct fuse_open_out open_out = { .open_flags = open_flags & ~W_PUSH_AFTER_OPEN };
	struct fuse_poll_out poll_out = { 0 };
	struct fuse_ioctl_out ioctl_out = { 0 };
	struct fuse_write_out wout;

	for (;;) {
		struct wreq r = { .opcode = 0 };
		int rc = 0;

		next_request(fd, buf, sizeof(buf));
		r.opcode = in->opcode;
		r.unique = in->unique;
		switch (in->opcode) {
		case FUSE_OPEN:
			if (in->len >= kh_at + sizeof(r.kh))
				memcpy(&r.kh, buf + kh_at, sizeof(r.kh));
			rc = write(reqs, &r, sizeof(r)) == sizeof(r) ? 0 : -1;
			if (!rc)
				rc = reply(fd, in->unique, 0, &open_out, sizeof(open_out));
			/* the opener is being woken: the worker runs on a fresh file */
			if (!rc && (open_flags & W_PUSH_AFTER_OPEN))
				push_events(fd, r.kh, POLLOUT | POLLIN);
			break;
		case FUSE_WRITE:
			r.size = win->size;
			memcpy(r.data, win + 1, win->size < sizeof(r.data) ? win->size : sizeof(r.data));
			rc = write(reqs, &r, sizeof(r)) == sizeof(r) ? 0 : -1;
			wout = (struct fuse_write_out){ .size = win->size };
			if (!rc && auto_answer)
				rc = reply(fd, in->unique, 0, &wout, sizeof(wout));
			break;
		case FUSE_IOCTL: rc = reply(fd, in->unique, 0, &ioctl_out, sizeof(ioctl_out)); break;
		case FUSE_POLL: rc = reply(fd, in->unique, 0, &poll_out, sizeof(poll_out)); break;
		case FUSE_INTERRUPT: break;
		case FUSE_RELEASE:
			rc = write(reqs, &r, sizeof(r)) == sizeof(r) ? 0 : -1;
			if (!rc)
				rc = reply(fd, in->unique, 0, NULL, 0);
			break;
		default: rc = reply(fd, in->unique, -ENOSYS, NULL, 0); break;
		}
		if (rc && errno != ENOENT)
			_exit(1);
	}
}

/* Register the device, taking CUSE_STREAM_WRITE and CUSE_POLL_EVENTS. */
static void wdev_start(struct wdev *d, const char *name, uint32_t open_flags, bool auto_answer)
{
	d->cuse = cuse_register(name, SW_CUSE_FLAG, "CUSE_STREAM_WRITE",
				SW_CUSE_FLAG | PE_CUSE_FLAG, d->path, sizeof(d->path));
	d->server = fork_server(&d->reqs);
	if (d->server == 0)
		wserve(d->cuse, open_flags, auto_answer, d->reqs);
}

/* The next report within ms, or a zeroed one (opcode 0). */
static struct wreq wnext(struct wdev *d, int ms)
{
	struct pollfd p = { .fd = d->reqs, .events = POLLIN };
	struct wreq r = { .opcode = 0 };

	if (poll(&p, 1, ms) != 1 || read(d->reqs, &r, sizeof(r)) != sizeof(r))
		r.opcode = 0;
	return r;
}

static int wdev_open(struct wdev *d, uint64_t *kh)
{
	struct wreq r;
	int fd = open_node(d->path, O_RDWR);

	if (fd < 0)
		return fd;
	r = wnext(d, 5000);
	if (r.opcode != FUSE_OPEN)
		fail("the server did not report the open");
	if (kh)
		*kh = r.kh;
	return fd;
}

static void wdev_stop(struct wdev *d)
{
	kill_server(&d->server);
	close(d->reqs);
	close(d->cuse);
}

/* Answer the drain unique with size taken (or an error); 0 or -errno. */
static int wanswer(struct wdev *d, uint64_t unique, int error, uint32_t size)
{
	struct fuse_write_out out = { .size = size };

	if (error)
		return reply(d->cuse, unique, error, NULL, 0) ? -errno : 0;
	return reply(d->cuse, unique, 0, &out, sizeof(out)) ? -errno : 0;
}

/* write() of len bytes: the count or -errno */
static ssize_t wwrite(int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	return n < 0 ? -errno : n;
}

/* tcdrain(): returns once every drain before it was answered. */
static int wdrain(int fd)
{
	return ioctl(fd, TCSBRK, 1) ? -errno : 0;
}

/* A bad answer to a FUSE_WRITE, and what the write() it fails returns */
struct wbad {
	const char *what;
	int error;	/* the answer's error */
	uint32_t size;	/* the answer's size */
	bool cut;	/* no fuse_write_out: EINVAL to the server */
	ssize_t expect; /* the write() after it (w-sizes), the big write() (w-big) */
};

/* Answer the FUSE_WRITE unique as bad says: NULL, or why that failed */
static const char *wanswer_bad(struct wdev *d, uint64_t unique, const struct wbad *bad)
{
	int err;

	if (bad->cut)
		err = reply(d->cuse, unique, 0, NULL, 0) ? -errno : 0;
	else
		err = wanswer(d, unique, bad->error, bad->size);
	if (err != (bad->cut ? -EINVAL : 0))
		return FAILED("%s: %s", bad->what, err ? strerror(-err) : "taken");
	return NULL;
}

static const char *attack_w_sizes(void)
{
	struct wdev d;
	struct wreq r;
	const char *why;
	ssize_t n;
	int fd, err;

	wdev_start(&d, "sw-sizes", FOPEN_NONSEEKABLE | SW_FOPEN_FLAG, false);
	fd = wdev_open(&d, NULL);
	if (fd < 0)
		return FAILED("open: %s", strerror(-fd));

	/* 0 taken: the same bytes come again */
	if ((n = wwrite(fd, "abcd", 4)) != 4)
		return FAILED("write: %zd", n);
	r = wnext(&d, 5000);
	if (r.opcode != FUSE_WRITE || r.size != 4)
		return FAILED("first drain: opcode %u size %u", r.opcode, r.size);
	for (int i = 0; i < 20; i++) {
		if ((err = wanswer(&d, r.unique, 0, 0)))
			return FAILED("answer 0: %s", strerror(-err));
		r = wnext(&d, 5000);
		if (r.opcode != FUSE_WRITE || r.size != 4 || memcmp(r.data, "abcd", 4))
			return FAILED("after an answer of 0: opcode %u size %u", r.opcode,
				      r.size);
	}
	/* an unknown unique, then the right one twice */
	if ((err = wanswer(&d, r.unique + 1000, 0, 4)) != -ENOENT)
		return FAILED("an answer to an unknown unique: %s", strerror(-err));
	if ((err = wanswer(&d, r.unique, 0, 4)))
		return FAILED("answer: %s", strerror(-err));
	if ((err = wanswer(&d, r.unique, 0, 4)) != -ENOENT)
		return FAILED("a second answer: %s", err ? strerror(-err) : "taken");
	if ((err = wdrain(fd)))
		return FAILED("tcdrain: %s", strerror(-err));

	/* answers the next write() fails on, once */
	static const struct wbad bad[] = {
		{ "an answer above the size sent", 0, 4096, false, -EIO },
		{ "an answer without fuse_write_out", 0, 0, true, -EIO },
		{ "an answer with EPIPE", -EPIPE, 0, false, -EPIPE },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if ((n = wwrite(fd, "e", 1)) != 1)
			return FAILED("write before %s: %zd", bad[i].what, n);
		r = wnext(&d, 5000);
		if (r.opcode != FUSE_WRITE)
			return FAILED("no drain before %s: opcode %u", bad[i].what, r.opcode);
		if ((why = wanswer_bad(&d, r.unique, &bad[i])))
			return why;
		wdrain(fd);
		if ((n = wwrite(fd, "f", 1)) != bad[i].expect)
			return FAILED("the write after %s: %zd, expected %zd", bad[i].what, n,
				      bad[i].expect);
	}
	/* a positive error: refused, the drain still waits for an answer */
	if ((n = wwrite(fd, "k", 1)) != 1)
		return FAILED("write: %zd", n);
	r = wnext(&d, 5000);
	if (reply(d.cuse, r.unique, 5, NULL, 0) == 0)
		return FAILED("an answer with error 5 was taken");
	if ((err = wanswer(&d, r.unique, 0, 1)))
		return FAILED("answer after the bad one: %s", strerror(-err));
	if ((err = wdrain(fd)))
		return FAILED("tcdrain: %s", strerror(-err));
	close(fd);
	r = wnext(&d, 5000);
	if (r.opcode != FUSE_RELEASE)
		return FAILED("no FUSE_RELEASE after the close: opcode %u", r.opcode);
	wdev_stop(&d);
	return NULL;
}

/*
 * A writer killed while its close() waits for a held drain: the exit's
 * release waits for the drain's answer; FUSE_RELEASE only after it, and
 * no second drain (the bytes behind it were dropped).
 */
static const char *attack_w_release(void)
{
	static char more[100];
	struct wdev d;
	struct wreq r, drain;
	pid_t child;
	int fd, err, status = 0;

	wdev_start(&d, "sw-release", FOPEN_NONSEEKABLE | SW_FOPEN_FLAG, false);
	/* the writer's file is its own: no other reference keeps it open */
	child = fork();
	if (child == 0) {
		fd = open(d.path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(1);
		if (write(fd, "held", 4) != 4)
			_exit(2);
		/* the drain is held: these wait behind it */
		if (write(fd, more, sizeof(more)) != sizeof(more))
			_exit(3);
		close(fd); /* waits for the drain: the parent kills it here */
		_exit(0);
	}
	if (wnext(&d, 5000).opcode != FUSE_OPEN)
		return FAILED("the writer's open was not reported");
	drain = wnext(&d, 5000);
	if (drain.opcode != FUSE_WRITE || drain.size != 4)
		return FAILED("no drain of 4: opcode %u size %u", drain.opcode, drain.size);
	wait_sleeping(child, child);
	kill(child, SIGKILL);
	usleep(300000);
	if (waitpid(child, &status, WNOHANG) == child)
		return FAILED("the writer ended before its drain was answered");
	if ((r = wnext(&d, 200)).opcode)
		return FAILED("opcode %u before the drain was answered", r.opcode);
	if ((err = wanswer(&d, drain.unique, 0, 4)))
		return FAILED("answer: %s", strerror(-err));
	r = wnext(&d, 5000);
	if (r.opcode != FUSE_RELEASE)
		return FAILED("after the answer: opcode %u size %u, expected FUSE_RELEASE",
			      r.opcode, r.size);
	if (waitpid(child, &status, 0) != child || !WIFSIGNALED(status))
		return FAILED("the writer: status 0x%x", status);
	wdev_stop(&d);
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
}

/*
 * An aio poll for POLLOUT holds a closed file's last reference while the
 * drain of its full buffer is held; the answer makes room.  With the
 * wake-up in the server's write() of the answer, the aio completion would
 * drop the file there and the release would wait for the server in its own
 * write(): the answer must return at once.
 */
static const char *attack_w_aio_close(void)
{
	static char big[SW_MAX];
	struct wdev d;
	struct wreq r;
	int fd, closed[2], status;
	pid_t child, answerer;
	double t0, took;

	wdev_start(&d, "sw-aio", FOPEN_NONSEEKABLE | SW_FOPEN_FLAG, false);
	if (pipe(closed))
		return FAILED("pipe: %s", strerror(errno));
	child = fork();
	if (child == 0) {
		struct iocb cb = { .aio_lio_opcode = IOCB_CMD_POLL, .aio_buf = POLLOUT };
		struct iocb *cbs[1] = { &cb };
		struct timespec ts = { .tv_sec = 10 };
		struct sigaction sa = { .sa_handler = on_usr1 };
		aio_context_t ctx = 0;
		struct io_event ev;

		sigaction(SIGUSR1, &sa, NULL);
		fd = open(d.path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(1);
		cb.aio_fildes = (uint32_t)fd;
		if (write(fd, big, sizeof(big)) != sizeof(big))
			_exit(2);
		if (syscall(__NR_io_setup, 1, &ctx) || syscall(__NR_io_submit, ctx, 1, cbs) != 1)
			_exit(3);
		/* the closing wait, cut short by SIGUSR1: the aio holds the file */
		close(fd);
		if (write(closed[1], "c", 1) != 1)
			_exit(4);
		if (syscall(__NR_io_getevents, ctx, 1, 1, &ev, &ts) != 1)
			_exit(5);
		_exit(ev.res & POLLOUT ? 0 : 6);
	}
	if (wnext(&d, 5000).opcode != FUSE_OPEN)
		return FAILED("the child's open was not reported");
	r = wnext(&d, 5000);
	if (r.opcode != FUSE_WRITE || r.size != SW_MAX)
		return FAILED("no drain of the full buffer: opcode %u size %u", r.opcode, r.size);
	wait_sleeping(child, child);
	kill(child, SIGUSR1);
	{
		struct pollfd p = { .fd = closed[0], .events = POLLIN };

		if (poll(&p, 1, 35000) != 1)
			return FAILED("the close did not return after SIGUSR1");
	}
	/*
	 * The answer, from a child, the server stopped: if the release ran
	 * in the answer's write(), it would wait there for a FUSE_RELEASE
	 * that nobody reads.
	 */
	kill(d.server, SIGSTOP);
	t0 = now_s();
	answerer = fork();
	if (answerer == 0)
		_exit(wanswer(&d, r.unique, 0, SW_MAX) ? 1 : 0);
	/* it returns in milliseconds, or never: 15 s is a loose guard */
	while (waitpid(answerer, &status, WNOHANG) == 0 && now_s() - t0 < 15)
		usleep(10000);
	took = now_s() - t0;
	kill(d.server, SIGCONT);
	if (took >= 15) {
		waitpid(answerer, &status, 0);
		return FAILED("the answer to the drain did not return in 15 s: it waited "
			      "for the release");
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return FAILED("the answer to the drain failed");
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		return FAILED("the aio poll: status 0x%x", status);
	r = wnext(&d, 5000);
	if (r.opcode != FUSE_RELEASE)
		return FAILED("no FUSE_RELEASE after the aio: opcode %u", r.opcode);
	wdev_stop(&d);
	return NULL;
}

struct wrace {
	struct wdev *d;
	int rounds;
	int failed;
};

static void *wrace_opener(void *arg)
{
	struct wrace *w = arg;
	char buf[64];

	memset(buf, 'r', sizeof(buf));
	for (int i = 0; i < w->rounds; i++) {
		int fd = open(w->d->path, O_RDWR | O_CLOEXEC | (i & 1 ? O_NONBLOCK : 0));
		struct pollfd p = { .fd = fd, .events = POLLOUT };

		if (fd < 0) {
			w->failed = errno;
			return NULL;
		}
		if (write(fd, buf, (size_t)(i % 64) + 1) < 0 && errno != EAGAIN)
			w->failed = errno;
		if (i % 3 == 0)
			poll(&p, 1, 0);
		close(fd);
	}
	return NULL;
}

/* Opens, writes and closes racing the drains' answers and each other. */
static const char *attack_w_race(void)
{
	struct wrace w[2];
	pthread_t t[2];
	struct wdev d;
	struct wreq r;
	int opens = 0, releases = 0, fd;

	wdev_start(&d, "sw-race", FOPEN_NONSEEKABLE | SW_FOPEN_FLAG, true);
	fd = wdev_open(&d, NULL);
	if (fd < 0)
		return FAILED("open: %s", strerror(-fd));
	close(fd);
	for (int i = 0; i < 2; i++) {
		w[i] = (struct wrace){ .d = &d, .rounds = 300 };
		pthread_create(&t[i], NULL, wrace_opener, &w[i]);
	}
	for (;;) {
		r = wnext(&d, 10000);
		if (!r.opcode)
			break;
		opens += r.opcode == FUSE_OPEN;
		releases += r.opcode == FUSE_RELEASE;
		if (releases == 601)
			break;
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		if (w[i].failed)
			return FAILED("a racing writer: %s", strerror(w[i].failed));
	}
	if (opens != 600 || releases != 601)
		return FAILED("%d opens, %d releases (of 600 and 601)", opens, releases);
	wdev_stop(&d);
	return NULL;
}

struct wwaiter {
	int fd;
	int what; /* 0 write, 1 tcdrain, 2 close */
	int result;
	_Atomic int done;
};

static void *wwait(void *arg)
{
	struct wwaiter *w = arg;

	if (w->what == 0)
		w->result = (int)wwrite(w->fd, "x", 1);
	else if (w->what == 1)
		w->result = wdrain(w->fd);
	else
		w->result = close(w->fd) ? -errno : 0;
	atomic_store(&w->done, 1);
	return NULL;
}

/* A writer waiting for room, a tcdrain() and a close() when the server dies. */
static const char *attack_w_abort(void)
{
	static char big[SW_MAX];
	struct wwaiter w[3];
	pthread_t t[3];
	struct wdev d;
	struct wreq r;
	int fd;
	double t0;

	wdev_start(&d, "sw-abort", FOPEN_NONSEEKABLE | SW_FOPEN_FLAG, false);
	fd = wdev_open(&d, NULL);
	if (fd < 0)
		return FAILED("open: %s", strerror(-fd));
	if (wwrite(fd, big, sizeof(big)) != sizeof(big))
		return FAILED("write of a full buffer");
	r = wnext(&d, 5000);
	if (r.opcode != FUSE_WRITE)
		return FAILED("no drain");
	for (int i = 0; i < 3; i++) {
		w[i] = (struct wwaiter){ .fd = i == 2 ? dup(fd) : fd, .what = i };
		pthread_create(&t[i], NULL, wwait, &w[i]);
	}
	usleep(300000);
	for (int i = 0; i < 3; i++)
		if (atomic_load(&w[i].done))
			return FAILED("waiter %d returned %d while the drain was held", i,
				      w[i].result);
	kill_server(&d.server);
	close(d.cuse);
	d.cuse = -1;
	t0 = now_s();
	for (int i = 0; i < 3; i++) {
		while (!atomic_load(&w[i].done) && now_s() - t0 < 10)
			usleep(10000);
		if (!atomic_load(&w[i].done))
			return FAILED("waiter %d did not return within 10 s of the abort", i);
		pthread_join(t[i], NULL);
	}
	if (w[0].result >= 0)
		return FAILED("the waiting write returned %d after the abort", w[0].result);
	if (wwrite(fd, "y", 1) != -ENOTCONN)
		return FAILED("a write after the abort did not fail with ENOTCONN");
	close(fd);
	close(d.reqs);
	return NULL;
}

/* POLLHUP pushed while a writer waits for room. */
static const char *attack_w_hangup(void)
{
	static char big[SW_MAX];
	struct wwaiter w = { 0 };
	pthread_t t;
	struct wdev d;
	struct wreq r;
	uint64_t kh;
	int fd, err;
	double t0;

	wdev_start(&d, "sw-hangup", FOPEN_NONSEEKABLE | SW_FOPEN_FLAG, false);
	fd = wdev_open(&d, &kh);
	if (fd < 0)
		return FAILED("open: %s", strerror(-fd));
	if (!kh)
		return FAILED("FUSE_OPEN carries no kernel handle");
	if (wwrite(fd, big, sizeof(big)) != sizeof(big))
		return FAILED("write of a full buffer");
	r = wnext(&d, 5000);
	if (r.opcode != FUSE_WRITE)
		return FAILED("no drain");
	w.fd = fd;
	pthread_create(&t, NULL, wwait, &w);
	usleep(200000);
	if ((err = push_events(d.cuse, kh, POLLHUP)))
		return FAILED("push of POLLHUP: %s", strerror(-err));
	t0 = now_s();
	while (!atomic_load(&w.done) && now_s() - t0 < 10)
		usleep(10000);
	if (!atomic_load(&w.done))
		return FAILED("the waiting writer did not return after the hangup");
	pthread_join(t, NULL);
	if (w.result != -EIO)
		return FAILED("the waiting writer after the hangup: %d", w.result);
	if (wwrite(fd, "z", 1) != -EIO)
		return FAILED("a write after the hangup did not fail with EIO");
	if ((err = wanswer(&d, r.unique, 0, SW_MAX)))
		return FAILED("answer after the hangup: %s", strerror(-err));
	close(fd);
	r = wnext(&d, 5000);
	if (r.opcode != FUSE_RELEASE)
		return FAILED("after the close: opcode %u size %u", r.opcode, r.size);
	wdev_stop(&d);
	return NULL;
}

/*
 * A server that declines FOPEN_STREAM_WRITE at open (on a connection that
 * took CUSE_STREAM_WRITE) and pushes events for the file as soon as it
 * answered the open, 200 times: the worker runs on a file that has no
 * write buffer; its writes are requests, answered at once.
 */
static const char *attack_w_declined_push(void)
{
	struct wdev d;
	struct wreq r;
	ssize_t n;

	wdev_start(&d, "sw-declined", FOPEN_NONSEEKABLE | W_PUSH_AFTER_OPEN, true);
	for (int i = 0; i < 200; i++) {
		int fd = wdev_open(&d, NULL);

		if (fd < 0)
			return FAILED("open %d: %s", i, strerror(-fd));
		if ((n = wwrite(fd, "d", 1)) != 1)
			return FAILED("write %d: %zd", i, n);
		r = wnext(&d, 5000);
		if (r.opcode != FUSE_WRITE || r.size != 1)
			return FAILED("write %d: opcode %u size %u, expected its own FUSE_WRITE", i,
				      r.opcode, r.size);
		close(fd);
		r = wnext(&d, 5000);
		if (r.opcode != FUSE_RELEASE)
			return FAILED("close %d: opcode %u", i, r.opcode);
	}
	wdev_stop(&d);
	return NULL;
}

static long wfile_cost(uint32_t open_flags, const char *name)
{
	static int fds[COST_FILES];
	long before, after;
	struct wdev d;

	wdev_start(&d, name, open_flags, true);
	fds[0] = wdev_open(&d, NULL);
	if (fds[0] < 0)
		fail("open %s: %s", name, strerror(-fds[0]));
	before = kmalloc_bytes();
	for (int i = 1; i < COST_FILES; i++) {
		fds[i] = wdev_open(&d, NULL);
		if (fds[i] < 0)
			fail("open %d of %s: %s", i, name, strerror(-fds[i]));
	}
	after = kmalloc_bytes();
	for (int i = 0; i < COST_FILES; i++)
		close(fds[i]);
	wdev_stop(&d);
	return (after - before) / (COST_FILES - 1);
}

/*
 * An open file with the write buffer against one whose server declined it
 * at open (same connection flags): the ring (kmalloc-4k) and its state
 * with the drain's fuse_args (kmalloc-512); bound 4096 + 1024.
 */
static const char *attack_w_file_cost(void)
{
	long plain, taken;

	if (kmalloc_bytes() < 0)
		return NULL;
	plain = wfile_cost(FOPEN_NONSEEKABLE, "sw-cost-plain");
	taken = wfile_cost(FOPEN_NONSEEKABLE | SW_FOPEN_FLAG, "sw-cost");
	note("w-file-cost: an open file takes %ld bytes of the kmalloc caches, %ld without "
	     "FOPEN_STREAM_WRITE: the write buffer costs %ld",
	     taken, plain, taken - plain);
	if (taken - plain > SW_MAX + 1024)
		return FAILED("the write buffer costs %ld bytes a file", taken - plain);
	return NULL;
}

/*
 * A server that answers every drain with an error, forever: each drain
 * drops what is buffered and the next write() fails once; the kernel sends
 * no drain of its own (no resend loop), tcdrain() and close() return, and
 * FUSE_RELEASE comes.
 */
#define W_ERROR_ROUNDS 200

static const char *attack_w_error_forever(void)
{
	char buf[100];
	struct wdev d;
	struct wreq r;
	int fd, err, failed = 0, drains = 0;
	ssize_t n;

	memset(buf, 'e', sizeof(buf));
	wdev_start(&d, "sw-errors", FOPEN_NONSEEKABLE | SW_FOPEN_FLAG, false);
	fd = wdev_open(&d, NULL);
	if (fd < 0)
		return FAILED("open: %s", strerror(-fd));
	for (int i = 0; i < W_ERROR_ROUNDS; i++) {
		n = wwrite(fd, buf, sizeof(buf));
		if (n == -EIO) {
			failed++;
			continue;
		}
		if (n != sizeof(buf))
			return FAILED("write %d: %zd, expected %zu or EIO", i, n, sizeof(buf));
		r = wnext(&d, 5000);
		if (r.opcode != FUSE_WRITE)
			return FAILED("write %d: no drain (opcode %u)", i, r.opcode);
		drains++;
		if ((err = wanswer(&d, r.unique, -EIO, 0)))
			return FAILED("answer %d: %s", i, strerror(-err));
		if ((err = wdrain(fd)))
			return FAILED("tcdrain after answer %d: %s", i, strerror(-err));
	}
	if ((r = wnext(&d, 300)).opcode)
		return FAILED("opcode %u size %u with nothing written: a drain of the kernel's "
			      "own", r.opcode, r.size);
	note("w-error-forever: %d writes, %d drains answered with EIO, %d writes failed with "
	     "EIO", W_ERROR_ROUNDS, drains, failed);
	/* every other write: one fails on the error the one before left */
	if (failed != W_ERROR_ROUNDS / 2 || drains != W_ERROR_ROUNDS / 2)
		return FAILED("%d writes failed, %d drains: expected %d each", failed, drains,
			      W_ERROR_ROUNDS / 2);
	if (close(fd) && errno != EIO)
		return FAILED("close: %s", strerror(errno));
	r = wnext(&d, 5000);
	if (r.opcode != FUSE_RELEASE)
		return FAILED("after the close: opcode %u, expected FUSE_RELEASE", r.opcode);
	wdev_stop(&d);
	return NULL;
}

/*
 * A server that answers every drain at once, taking nothing (size 0),
 * forever: the same bytes come again each time.  A close() waits (the
 * closing wait) and a signal ends it; the release drops the bytes, waits
 * for the drain in flight (answered 0 like the others) and sends no more:
 * FUSE_RELEASE comes and the writer exits.
 */
static const char *attack_w_zero_forever(void)
{
	struct wdev d;
	struct wreq r;
	int status = 0, drains = 0, err;
	double t0;
	pid_t child;

	wdev_start(&d, "sw-zero", FOPEN_NONSEEKABLE | SW_FOPEN_FLAG, false);
	child = fork();
	if (child == 0) {
		struct sigaction sa = { .sa_handler = on_usr1 }; /* no SA_RESTART */
		int fd = open(d.path, O_RDWR | O_CLOEXEC);

		sigaction(SIGALRM, &sa, NULL);
		if (fd < 0)
			_exit(1);
		if (write(fd, "zero", 4) != 4)
			_exit(2);
		alarm(1);
		close(fd); /* waits: nothing is taken; SIGALRM ends the wait */
		_exit(0);
	}
	t0 = now_s();
	for (;;) {
		r = wnext(&d, 10000);
		if (r.opcode == FUSE_RELEASE)
			break;
		if (r.opcode == FUSE_OPEN)
			continue;
		if (r.opcode != FUSE_WRITE || r.size != 4 || memcmp(r.data, "zero", 4))
			return FAILED("after %d drains: opcode %u size %u", drains, r.opcode,
				      r.size);
		drains++;
		/* ENOENT: the release dropped the drain's bytes meanwhile? It waits */
		if ((err = wanswer(&d, r.unique, 0, 0)))
			return FAILED("answer %d: %s", drains, strerror(-err));
		/* the closing wait is 30 s: past it, the signal did not end it */
		if (now_s() - t0 > 25)
			return FAILED("%d drains in %.0f s: the close was not ended by its "
				      "signal", drains, now_s() - t0);
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		return FAILED("the writer: status 0x%x", status);
	if ((r = wnext(&d, 300)).opcode)
		return FAILED("opcode %u after FUSE_RELEASE", r.opcode);
	note("w-zero-forever: %d drains answered with 0 before the release", drains);
	wdev_stop(&d);
	return NULL;
}

/*
 * Many files, each with a full buffer and its drain unanswered: the kernel
 * sends the server at most the connection's max_background drains at once
 * (the others wait in its background queue, and one comes when one is
 * answered); what the files cost the kmalloc caches (at most 4096 + 2048
 * bytes a file); when the server dies every close() returns at once (no
 * closing wait on a dead connection).  Twice: what a round leaves in the
 * caches after its closes (freed objects the slab allocator keeps on its
 * CPUs' lists count as active in /proc/slabinfo) does not grow in the
 * second round, where a leaked buffer would add 4096 bytes a file.
 */
#define W_MANY 256

static const char *w_many_full_round(const char *name, long *k_closed)
{
	static char big[SW_MAX];
	static int fds[W_MANY];
	long k_before, k_after, per_file;
	int drains = 0, err;
	uint64_t first = 0;
	struct wdev d;
	struct wreq r;
	ssize_t n;
	double t0;

	wdev_start(&d, name, FOPEN_NONSEEKABLE | SW_FOPEN_FLAG, false);
	for (int i = 0; i < 500 && access(d.path, F_OK); i++)
		usleep(10000);
	k_before = kmalloc_bytes();
	for (int i = 0; i < W_MANY; i++) {
		fds[i] = open_node(d.path, O_RDWR | O_NONBLOCK);
		if (fds[i] < 0)
			return FAILED("open %d: %s", i, strerror(-fds[i]));
		if ((n = wwrite(fds[i], big, SW_MAX)) != SW_MAX ||
		    (n = wwrite(fds[i], big, 1)) != -EAGAIN)
			return FAILED("file %d: its buffer did not fill: %zd", i, n);
	}
	/* the opens, and the drains the kernel sent */
	while ((r = wnext(&d, 1000)).opcode) {
		if (r.opcode == FUSE_WRITE && !drains++)
			first = r.unique;
		else if (r.opcode != FUSE_WRITE && r.opcode != FUSE_OPEN)
			return FAILED("opcode %u", r.opcode);
	}
	k_after = kmalloc_bytes();
	per_file = k_before < 0 ? 0 : (k_after - k_before) / W_MANY;
	if (!drains)
		return FAILED("no drain of %d full buffers", W_MANY);
	if (drains < W_MANY) {
		/* the background queue moves: an answer lets the next one come */
		if ((err = wanswer(&d, first, 0, SW_MAX)))
			return FAILED("answer: %s", strerror(-err));
		r = wnext(&d, 5000);
		if (r.opcode != FUSE_WRITE || r.size != SW_MAX)
			return FAILED("after an answer with %d drains held: opcode %u size %u",
				      drains, r.opcode, r.size);
	}
	kill_server(&d.server);
	close(d.cuse);
	t0 = now_s();
	for (int i = 0; i < W_MANY; i++)
		close(fds[i]);
	close(d.reqs);
	*k_closed = kmalloc_bytes();
	note("w-many-full: %d files with a full buffer, %d drains sent at once; %ld bytes of "
	     "kmalloc caches a file; closed in %.2f s after the abort",
	     W_MANY, drains, per_file, now_s() - t0);
	/* the ring, its state, the file and its request's arguments: 4096 + 2048 */
	if (per_file > SW_MAX + 2048)
		return FAILED("%ld bytes a file with a full buffer", per_file);
	if (now_s() - t0 > 15) /* each returns at once; a loose guard */
		return FAILED("the closes took %.1f s after the abort", now_s() - t0);
	return NULL;
}

static const char *attack_w_many_full(void)
{
	const char *why;
	long k1, k2;

	if ((why = w_many_full_round("sw-many-1", &k1)) || (why = w_many_full_round("sw-many-2", &k2)))
		return why;
	note("w-many-full: the caches after the second round's closes: %+ld bytes a file",
	     (k2 - k1) / W_MANY);
	/* a leaked buffer is 4096 bytes a file: allow 1024 of the caches' noise */
	if (k1 >= 0 && k2 - k1 > 1024L * W_MANY)
		return FAILED("%ld bytes a file left after the second round", (k2 - k1) / W_MANY);
	return NULL;
}

/* ---- the driver ---- */

/* A write() of W_BIG bytes of w_big in a thread */
#define W_BIG 10000
static char w_big[W_BIG];

struct wbig_writer {
	int fd;
	ssize_t result;
	_Atomic int done;
};

static void *wbig_write(void *arg)
{
	struct wbig_writer *w = arg;

	w->result = wwrite(w->fd, w_big, sizeof(w_big));
	atomic_store(&w->done, 1);
	return NULL;
}

/* Start a big write(); its first FUSE_WRITE, with the bytes from 0 on. */
static const char *wbig_start(struct wdev *d, struct wbig_writer *w, pthread_t *t, int fd,
			      struct wreq *r)
{
	*w = (struct wbig_writer){ .fd = fd };
	if (pthread_create(t, NULL, wbig_write, w))
		return FAILED("pthread_create");
	*r = wnext(d, 5000);
	if (r->opcode != FUSE_WRITE || r->size != SW_MAX || memcmp(r->data, w_big, 8))
		return FAILED("the big write's first FUSE_WRITE: opcode %u size %u", r->opcode,
			      r->size);
	return NULL;
}

/* Whether the big write() returned within 5 s (then joined) */
static bool wbig_returned(struct wbig_writer *w, pthread_t t)
{
	double t0 = now_s();

	while (!atomic_load(&w->done) && now_s() - t0 < 5)
		usleep(5000);
	if (!atomic_load(&w->done))
		return false;
	pthread_join(t, NULL);
	return true;
}

/* The big write()'s result within 5 s */
static const char *wbig_result(struct wbig_writer *w, pthread_t t, ssize_t expect,
			       const char *what)
{
	if (!wbig_returned(w, t))
		return FAILED("%s: the big write did not return", what);
	if (w->result != expect)
		return FAILED("%s: the big write returned %zd, expected %zd", what, w->result,
			      expect);
	return NULL;
}

/* One byte through the buffer: nothing was left behind. */
static const char *wbig_small(struct wdev *d, int fd, const char *what)
{
	struct wreq r;
	int err;

	if (wwrite(fd, "s", 1) != 1)
		return FAILED("%s: the small write after failed", what);
	r = wnext(d, 5000);
	if (r.opcode != FUSE_WRITE || r.size != 1 || r.data[0] != 's')
		return FAILED("%s: the drain after: opcode %u size %u", what, r.opcode, r.size);
	if ((err = wanswer(d, r.unique, 0, 1)) || (err = wdrain(fd)))
		return FAILED("%s: the drain after: %s", what, strerror(-err));
	return NULL;
}

/* Answer the big write's part r whole, and the parts after it, in order. */
static const char *wbig_parts(struct wdev *d, struct wreq r, const char *what)
{
	int err;

	for (size_t at = 0; at < sizeof(w_big); at += SW_MAX) {
		size_t part = sizeof(w_big) - at < SW_MAX ? sizeof(w_big) - at : SW_MAX;

		if (at)
			r = wnext(d, 5000);
		if (r.opcode != FUSE_WRITE || r.size != part || memcmp(r.data, w_big + at, 8))
			return FAILED("%s: the part at %zu: opcode %u size %u", what, at, r.opcode,
				      r.size);
		if ((err = wanswer(d, r.unique, 0, part)))
			return FAILED("%s: the part at %zu: %s", what, at, strerror(-err));
	}
	if ((err = wanswer(d, r.unique, 0, 1)) != -ENOENT)
		return FAILED("%s: a second answer: %s", what, err ? strerror(-err) : "taken");
	return NULL;
}

static const char *attack_w_big(void)
{
	struct wbig_writer w;
	struct wreq r, drain;
	struct wdev d;
	const char *why;
	pthread_t t;
	int fd, err;

	for (size_t i = 0; i < sizeof(w_big); i++)
		w_big[i] = 'A' + i % 23 + i / 4096;
	wdev_start(&d, "sw-big", FOPEN_NONSEEKABLE | SW_FOPEN_FLAG, false);
	fd = wdev_open(&d, NULL);
	if (fd < 0)
		return FAILED("open: %s", strerror(-fd));

	/* answers the write() returns, each with nothing left behind */
	static const struct wbad bad[] = {
		{ "an answer above the size sent", 0, SW_MAX + 1, false, -EIO },
		{ "a short answer", 0, 100, false, 100 },
		{ "an answer with EPIPE", -EPIPE, 0, false, -EPIPE },
		{ "an answer without fuse_write_out", 0, 0, true, -EIO },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if ((why = wbig_start(&d, &w, &t, fd, &r)) ||
		    (why = wanswer_bad(&d, r.unique, &bad[i])))
			return why;
		if ((why = wbig_result(&w, t, bad[i].expect, bad[i].what)) ||
		    (why = wbig_small(&d, fd, bad[i].what)))
			return why;
	}

	/* an unknown unique, then every part in order, then one answered twice */
	if ((why = wbig_start(&d, &w, &t, fd, &r)))
		return why;
	if ((err = wanswer(&d, r.unique + 1000, 0, SW_MAX)) != -ENOENT)
		return FAILED("an answer to an unknown unique: %s", strerror(-err));
	if ((why = wbig_parts(&d, r, "whole")))
		return why;
	if ((why = wbig_result(&w, t, sizeof(w_big), "whole")))
		return why;

	/* after a held drain: not before it is answered */
	if (wwrite(fd, "r", 1) != 1)
		return FAILED("the write before the big one");
	drain = wnext(&d, 5000);
	if (drain.opcode != FUSE_WRITE || drain.size != 1)
		return FAILED("the drain: opcode %u size %u", drain.opcode, drain.size);
	w = (struct wbig_writer){ .fd = fd };
	if (pthread_create(&t, NULL, wbig_write, &w))
		return FAILED("pthread_create");
	r = wnext(&d, 300);
	if (r.opcode)
		return FAILED("opcode %u size %u while the drain was held", r.opcode, r.size);
	if (atomic_load(&w.done))
		return FAILED("the big write returned %zd while the drain was held", w.result);
	if ((err = wanswer(&d, drain.unique, 0, 1)))
		return FAILED("the drain's answer: %s", strerror(-err));
	r = wnext(&d, 5000);
	if (r.opcode != FUSE_WRITE || r.size != SW_MAX || memcmp(r.data, w_big, 8))
		return FAILED("after the drain: opcode %u size %u", r.opcode, r.size);
	if ((why = wbig_parts(&d, r, "after a drain")) ||
	    (why = wbig_result(&w, t, sizeof(w_big), "after a drain")))
		return why;

	/* the server dies while a part is held */
	if ((why = wbig_start(&d, &w, &t, fd, &r)))
		return why;
	kill_server(&d.server);
	close(d.cuse);
	if (!wbig_returned(&w, t))
		return FAILED("the big write did not return after the server died");
	if (w.result >= 0)
		return FAILED("the big write returned %zd after the server died", w.result);
	if (close(fd))
		return FAILED("close after the server died: %s", strerror(errno));
	close(d.reqs);
	return NULL;
}

/* ---- take-backs ---- */

/* 0 or -errno */
static int take_back(int cuse, uint64_t unique, uint64_t kh)
{
	struct sr_out o = { .notify_unique = unique, .kh = kh };

	return reply(cuse, 0, SR_NOTIFY_CODE, &o, sizeof(o)) ? -errno : 0;
}

static int read_all(int fd, void *buf, size_t len, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;

	while (got < len) {
		ssize_t n;

		if (poll(&p, 1, ms) != 1)
			return -1;
		n = read(fd, (char *)buf + got, len - got);
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* The next take-back's reply the server copied to fd: its bytes in buf. */
static ssize_t taken_next(int fd, uint64_t *unique, uint64_t *kh, void *buf, size_t room)
{
	struct fuse_in_header in;
	struct sr_in a;

	if (read_all(fd, &in, sizeof(in), 10000) || in.opcode != FUSE_NOTIFY_REPLY ||
	    read_all(fd, &a, sizeof(a), 10000) || in.len != sizeof(in) + sizeof(a) + a.size ||
	    a.size > room || a.padding || read_all(fd, buf, a.size, 10000))
		return -1;
	*unique = in.unique;
	*kh = a.kh;
	return a.size;
}

/* Stop the server and wait until it is stopped: it reads nothing more. */
static void stop_server(pid_t server)
{
	double deadline = now_s() + 10;

	kill(server, SIGSTOP);
	while (task_state(server, server) != 'T')
		if (now_s() > deadline)
			fail("the server %d did not stop", server);
		else
			usleep(1000);
}

static const char *attack_tb_invalid(void)
{
	struct sr_out o = { .kh = 0 };
	char big[sizeof(o) + 8] = { 0 };
	struct dev d, other, dec;
	struct server_cfg declined = opt_in;
	uint64_t kh, kh2;
	const char *why;
	int fd, fd2, dfd, err;

	dev_start(&d, "tb-invalid", &opt_in);
	dev_start(&other, "tb-invalid-b", &opt_in);
	declined.decline = true;
	dev_start(&dec, "tb-invalid-d", &declined);
	fd = dev_open(&d, O_RDONLY | O_NONBLOCK, &kh);
	fd2 = dev_open(&d, O_RDONLY | O_NONBLOCK, &kh2);
	dfd = dev_open(&dec, O_RDONLY | O_NONBLOCK, NULL);
	if (fd < 0 || fd2 < 0 || dfd < 0)
		return FAILED("open: %s", strerror(-(fd < 0 ? fd : fd2 < 0 ? fd2 : dfd)));
	if ((err = push(d.cuse, kh, "keep", 4)))
		return FAILED("push: %s", strerror(-err));
	const uint64_t unknown[] = { 0, kh + 1000, ~0ull, kh2 + 1 };
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		if ((err = take_back(d.cuse, 1, unknown[i])) != -ENOENT)
			return FAILED("a take-back of kh %llu: %s, expected ENOENT",
				      (unsigned long long)unknown[i], err ? strerror(-err) : "taken");
	if ((err = take_back(other.cuse, 1, kh)) != -ENOENT)
		return FAILED("a take-back on another connection: %s, expected ENOENT",
			      err ? strerror(-err) : "taken");
	o.kh = kh;
	if (reply(d.cuse, 0, SR_NOTIFY_CODE, &o, sizeof(o) - 1) != -1 || errno != EINVAL)
		return FAILED("a short take-back: not EINVAL");
	memcpy(big, &o, sizeof(o));
	if (reply(d.cuse, 0, SR_NOTIFY_CODE, big, sizeof(big)) != -1 || errno != EINVAL)
		return FAILED("a long take-back: not EINVAL");
	if ((err = take_back(dec.cuse, 1, 1)) != -EINVAL)
		return FAILED("a take-back on a declined connection: %s, expected EINVAL",
			      err ? strerror(-err) : "taken");
	close(fd2);
	if ((err = take_back(d.cuse, 1, kh2)) != -ENOENT)
		return FAILED("a take-back of a released file: %s, expected ENOENT",
			      err ? strerror(-err) : "taken");
	if ((why = check_reads(fd, "keep", 4)))
		return why;
	close(fd);
	close(dfd);
	dev_kill_server(&d);
	dev_kill_server(&other);
	dev_kill_server(&dec);
	close(d.cuse);
	close(other.cuse);
	close(dec.cuse);
	return NULL;
}

struct tb_reader {
	int fd;
	_Atomic int stop;
	unsigned long counts[256];
	size_t got;
	const char *why;
};

static void *tb_read(void *arg)
{
	struct tb_reader *r = arg;
	size_t room;
	unsigned char *guarded = guarded_buffer(&room);
	unsigned char buf[512];
	unsigned int seed = (unsigned int)r->fd * 7919u;

	for (;;) {
		bool stop = atomic_load(&r->stop);
		size_t want = 1 + rand_r(&seed) % sizeof(buf);
		unsigned char *to = buf;
		ssize_t n;

		/* a short copy: the last bytes before an unmapped page */
		if (rand_r(&seed) % 4 == 0 && guarded) {
			to = guarded + room - 1 - rand_r(&seed) % 8;
			want = sizeof(buf);
		}
		n = read(r->fd, to, want);
		if (n < 0 && errno != EAGAIN && errno != EFAULT) {
			r->why = "a read failed";
			return NULL;
		}
		for (ssize_t i = 0; i < n; i++)
			r->counts[to[i]]++;
		if (n > 0)
			r->got += (size_t)n;
		else if (stop)
			return NULL;
		else
			usleep(100);
	}
}

static const char *attack_tb_read_race(void)
{
	static unsigned char chunk[SD_MAX], back[SD_MAX];
	static unsigned long pushed_counts[256];
	static struct tb_reader r[2];
	int taken[2], fd, err, rounds = 0;
	struct server_cfg cfg = opt_in;
	size_t pushed = 0, taken_back = 0;
	unsigned int seed = 41;
	uint64_t kh, unique, tkh;
	pthread_t t[2];
	struct dev d;
	ssize_t n;

	if (pipe(taken))
		return FAILED("pipe: %s", strerror(errno));
	cfg.taken_fd = taken[1];
	dev_start(&d, "tb-race", &cfg);
	fd = dev_open(&d, O_RDONLY | O_NONBLOCK, &kh);
	if (fd < 0)
		return FAILED("open: %s", strerror(-fd));
	for (int i = 0; i < 2; i++) {
		r[i] = (struct tb_reader){ .fd = fd };
		pthread_create(&t[i], NULL, tb_read, &r[i]);
	}
	while (pushed < 256 * 1024) {
		size_t len = 1 + rand_r(&seed) % 512;

		for (size_t i = 0; i < len; i++)
			chunk[i] = (unsigned char)rand_r(&seed);
		while ((err = push(d.cuse, kh, chunk, (uint32_t)len))) {
			if (err != -ENOSPC && err != -EBUSY)
				return FAILED("push: %s", strerror(-err));
			usleep(200);
		}
		for (size_t i = 0; i < len; i++)
			pushed_counts[chunk[i]]++;
		pushed += len;
		if (rand_r(&seed) % 4 && pushed < 256 * 1024)
			continue;
		rounds++;
		usleep(rand_r(&seed) % 500); /* the readers take some */
		if ((err = take_back(d.cuse, (uint64_t)rounds, kh)))
			return FAILED("take-back %d: %s", rounds, strerror(-err));
		n = taken_next(taken[0], &unique, &tkh, back, sizeof(back));
		if (n < 0 || unique != (uint64_t)rounds || tkh != kh)
			return FAILED("take-back %d: no reply or a wrong one", rounds);
		for (ssize_t i = 0; i < n; i++)
			pushed_counts[back[i]]--;
		taken_back += (size_t)n;
	}
	for (int i = 0; i < 2; i++) {
		atomic_store(&r[i].stop, 1);
		pthread_join(t[i], NULL);
		if (r[i].why)
			return FAILED("reader %d: %s", i, r[i].why);
	}
	printf("tb-read-race: %zu bytes pushed, %zu and %zu read, %zu taken back in %d take-backs\n",
	       pushed, r[0].got, r[1].got, taken_back, rounds);
	if (r[0].got + r[1].got + taken_back != pushed)
		return FAILED("%zu read and %zu taken back of %zu pushed", r[0].got + r[1].got,
			      taken_back, pushed);
	for (int v = 0; v < 256; v++)
		if (pushed_counts[v] != r[0].counts[v] + r[1].counts[v])
			return FAILED("byte %d: pushed %lu more than read", v, pushed_counts[v]);
	close(fd);
	dev_kill_server(&d);
	close(d.cuse);
	close(taken[0]);
	close(taken[1]);
	return NULL;
}

static const char *attack_tb_release(void)
{
	int taken[2], fd, err;
	struct server_cfg cfg = opt_in;
	uint64_t kh, unique, tkh;
	char back[16];
	pthread_t t;
	struct dev d;

	if (pipe(taken))
		return FAILED("pipe: %s", strerror(errno));
	cfg.taken_fd = taken[1];
	dev_start(&d, "tb-release", &cfg);
	for (int round = 0; round < 20; round++) {
		fd = dev_open(&d, O_RDONLY, &kh);
		if (fd < 0)
			return FAILED("open: %s", strerror(-fd));
		if ((err = push(d.cuse, kh, "gone", 4)))
			return FAILED("push: %s", strerror(-err));
		stop_server(d.server);
		if ((err = take_back(d.cuse, 7, kh)))
			return FAILED("take-back: %s", strerror(-err));
		pthread_create(&t, NULL, close_fd, &fd);
		usleep(round * 1000);
		kill(d.server, SIGCONT);
		pthread_join(t, NULL);
		if (taken_next(taken[0], &unique, &tkh, back, sizeof(back)) != 4 ||
		    memcmp(back, "gone", 4))
			return FAILED("round %d: the reply did not carry the bytes", round);
	}
	dev_kill_server(&d);
	close(d.cuse);
	close(taken[0]);
	close(taken[1]);
	return NULL;
}

static const char *attack_tb_many_files(void)
{
	static unsigned char in[SD_MAX], out[SD_MAX + 1];
	enum { FILES = 256 };
	static int fds[FILES];
	static uint64_t khs[FILES];
	struct dev d;
	int err;

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 13);
	dev_start(&d, "tb-many", &opt_in);
	for (int i = 0; i < FILES; i++) {
		fds[i] = dev_open(&d, O_RDONLY | O_NONBLOCK, &khs[i]);
		if (fds[i] < 0)
			return FAILED("open %d: %s", i, strerror(-fds[i]));
		if ((err = push(d.cuse, khs[i], in, SD_MAX)))
			return FAILED("push %d: %s", i, strerror(-err));
	}
	stop_server(d.server);
	for (int i = 0; i < FILES; i++) {
		if ((err = take_back(d.cuse, (uint64_t)i + 1, khs[i])))
			return FAILED("take-back %d: %s", i, strerror(-err));
		if ((err = take_back(d.cuse, (uint64_t)i + 1, khs[i])) != -EBUSY)
			return FAILED("a second take-back of file %d: %s, expected EBUSY", i,
				      err ? strerror(-err) : "taken");
		if ((err = push(d.cuse, khs[i], in, 1)) != -EBUSY)
			return FAILED("a push with a take-back out, file %d: %s, expected EBUSY", i,
				      err ? strerror(-err) : "taken");
	}
	/* the server dies without reading one reply */
	close(d.cuse);
	dev_kill_server(&d);
	for (int i = 0; i < FILES; i++) {
		size_t got = 0;
		ssize_t n;

		while ((n = read(fds[i], out + got, sizeof(out) - got)) > 0)
			got += (size_t)n;
		if (got != SD_MAX || memcmp(out, in, SD_MAX))
			return FAILED("file %d read %zu bytes back after the server died", i, got);
		if (n != -1 || errno != ENOTCONN)
			return FAILED("file %d: then %zd (%s), expected ENOTCONN", i, n,
				      n < 0 ? strerror(errno) : "");
		close(fds[i]);
	}
	return NULL;
}

struct tb_drain {
	int fd;
	_Atomic long replies;
};

static void *tb_drain(void *arg)
{
	struct tb_drain *dr = arg;
	char buf[BUF_SIZE];
	uint64_t unique, kh;

	while (taken_next(dr->fd, &unique, &kh, buf, sizeof(buf)) >= 0)
		atomic_fetch_add(&dr->replies, 1);
	return NULL;
}

static const char *attack_tb_flood(void)
{
	int taken[2], fd, err;
	struct server_cfg cfg = opt_in;
	struct tb_drain dr;
	long ok = 0, busy = 0;
	pthread_t t;
	uint64_t kh;
	struct dev d;

	if (pipe(taken))
		return FAILED("pipe: %s", strerror(errno));
	cfg.taken_fd = taken[1];
	dev_start(&d, "tb-flood", &cfg);
	fd = dev_open(&d, O_RDONLY | O_NONBLOCK, &kh);
	if (fd < 0)
		return FAILED("open: %s", strerror(-fd));
	close(taken[1]);
	dr = (struct tb_drain){ .fd = taken[0] };
	pthread_create(&t, NULL, tb_drain, &dr);
	for (int i = 0; i < 20000; i++) {
		if (i % 16 == 0)
			push(d.cuse, kh, "flood", 5);
		err = take_back(d.cuse, (uint64_t)i, kh);
		if (!err)
			ok++;
		else if (err == -EBUSY)
			busy++;
		else
			return FAILED("take-back %d: %s", i, strerror(-err));
	}
	/* every reply read before the server goes (10 s at most) */
	for (int i = 0; i < 1000 && atomic_load(&dr.replies) < ok; i++)
		usleep(10000);
	close(fd);
	close(d.cuse);
	dev_kill_server(&d);
	pthread_join(t, NULL);
	close(taken[0]);
	printf("tb-flood: %ld taken, %ld EBUSY, %ld replies\n", ok, busy, atomic_load(&dr.replies));
	if (atomic_load(&dr.replies) != ok)
		return FAILED("%ld take-backs taken, the server got %ld replies", ok,
			      atomic_load(&dr.replies));
	return NULL;
}

static const struct guest_attack attacks[] = {
	{ "abort", attack_abort },
	{ "ring", attack_ring },
	{ "two-readers", attack_two_readers },
	{ "open-fail", attack_open_fail },
	{ "other-conn", attack_other_conn },
	{ "file-cost", attack_file_cost },
	{ "not-taken", attack_not_taken },
	{ "held-release", attack_held_release },
	{ "efault", attack_efault },
	{ "splice", attack_splice },
	{ "uring-close", attack_uring_close },
	{ "uring-read", attack_uring_read },
	{ "w-sizes", attack_w_sizes },
	{ "w-release", attack_w_release },
	{ "w-aio-close", attack_w_aio_close },
	{ "w-race", attack_w_race },
	{ "w-abort", attack_w_abort },
	{ "w-hangup", attack_w_hangup },
	{ "w-declined-push", attack_w_declined_push },
	{ "w-file-cost", attack_w_file_cost },
	{ "w-error-forever", attack_w_error_forever },
	{ "w-zero-forever", attack_w_zero_forever },
	{ "w-many-full", attack_w_many_full },
	{ "w-big", attack_w_big },
	{ "tb-invalid", attack_tb_invalid },
	{ "tb-read-race", attack_tb_read_race },
	{ "tb-release", attack_tb_release },
	{ "tb-many-files", attack_tb_many_files },
	{ "tb-flood", attack_tb_flood },
};

int main(int argc, char **argv)
{
	return guest_attack_main("stream-attack", attacks, sizeof(attacks) / sizeof(attacks[0]), argc, argv,
				 ATTACK_S);
}
