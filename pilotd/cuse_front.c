// SPDX-License-Identifier: MIT
/*
 * The CUSE front: /dev/pilot as the kernel's CUSE driver sees it.
 *
 * Every handler answers at once or parks the request; none blocks.  A
 * parked request is answered later by front_rx_ready()/front_tx_room()
 * when the queues change, with EINTR when the caller is interrupted (see
 * on_interrupt), or with EIO at shutdown.  See core/parked.h for the
 * exactly-once rule.
 */
#define FUSE_USE_VERSION 35
#include <asm/ioctls.h>
#include <cuse_lowlevel.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "log.h"
#include "open_reply.h"
#include "pilotd.h"

#define CUSE_MAX_READ (128u * 1024)

static struct pilot_file *file_find(struct pilotd *pd, uint64_t fh)
{
	for (struct pilot_file *f = pd->files; f; f = f->next)
		if (f->fh == fh)
			return f;
	return NULL;
}

static void file_remove(struct pilotd *pd, uint64_t fh)
{
	for (struct pilot_file **pp = &pd->files; *pp; pp = &(*pp)->next) {
		struct pilot_file *f = *pp;

		if (f->fh != fh)
			continue;
		*pp = f->next;
		if (f->ph)
			fuse_pollhandle_destroy(f->ph);
		free(f);
		return;
	}
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/*
 * How much of a write txq takes: all of it, once it fits.  The kernel
 * sends a write in requests of at most 32 pages, 128 KiB
 * (FUSE_DEFAULT_MAX_PAGES_PER_REQ, fs/fuse/file.c fuse_direct_io()), less
 * than TXQ_SIZE, so blocking writes are never short; the cap only guards
 * the invariant.
 */
static size_t write_chunk(const struct pilotd *pd, size_t size)
{
	return min_size(size, pd->txq.cap);
}

static unsigned int current_events(struct pilotd *pd, const struct pilot_file *f)
{
	unsigned int ev = 0;

	/* What a hung-up tty reports (drivers/tty/tty_io.c hung_up_tty_poll) */
	if (f && f->hung_up)
		return POLLIN | POLLOUT | POLLERR | POLLHUP | POLLRDNORM | POLLWRNORM;
	if (byteq_len(&pd->rxq) > 0)
		ev |= POLLIN | POLLRDNORM;
	if (byteq_space(&pd->txq) > 0 && !pd->parked_writes.head)
		ev |= POLLOUT | POLLWRNORM;
	return ev;
}

static bool is_hung_up(struct pilotd *pd, uint64_t fh)
{
	struct pilot_file *f = file_find(pd, fh);

	return f && f->hung_up;
}

/* Called by libfuse with the request's lock held: only mark it here. */
static void on_interrupt(fuse_req_t req, void *data)
{
	struct pilotd *pd = data;
	struct parked *p = parked_find(&pd->parked_reads, req);

	if (!p)
		p = parked_find(&pd->parked_writes, req);
	if (!p)
		p = parked_find(&pd->parked_ioctls, req);
	if (p) {
		p->interrupted = true;
		pd->interrupts_pending = true;
	}
}

static struct parked *park(struct pilotd *pd, struct parked_list *l, fuse_req_t req, uint64_t fh,
			   const void *data, size_t size)
{
	struct parked *p = parked_add(l, req, fh, data, size);

	if (!p) {
		fuse_reply_err(req, ENOMEM);
		return NULL;
	}
	p->started_ms = now_ms();
	fuse_req_interrupt_func(req, on_interrupt, pd);
	return p;
}

/* Answer every parked request in l that matches fh with err. */
static void answer_all(struct parked_list *l, uint64_t fh, int err)
{
	struct parked *p;

	while ((p = parked_first_of(l, fh))) {
		parked_take(l, p);
		fuse_reply_err(p->req, err);
		parked_free(p);
	}
}

static void answer_interrupted(struct parked_list *l)
{
	struct parked *p;

	while ((p = parked_first_interrupted(l))) {
		parked_take(l, p);
		fuse_reply_err(p->req, EINTR);
		parked_free(p);
	}
}

static void pilot_init_done(void *userdata)
{
	struct pilotd *pd = userdata;

	log_info("/dev/%s is ready", pd->cfg.devname);
}

static void pilot_open(fuse_req_t req, struct fuse_file_info *fi)
{
	struct pilotd *pd = fuse_req_userdata(req);
	struct pilot_file *f = calloc(1, sizeof(*f));
	char reply[OPEN_REPLY_MAX];
	size_t len;

	if (!f) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	/* TIOCEXCL: as on a tty, only root may open it again */
	if (pd->tty.exclusive && fuse_req_ctx(req)->uid != 0) {
		free(f);
		fuse_reply_err(req, EBUSY);
		return;
	}
	f->fh = ++pd->next_fh;
	f->next = pd->files;
	pd->files = f;
	/* STREAM is honoured for CUSE only with kernel-patches/0001. */
	len = open_reply(reply, f->fh, OPEN_DIRECT_IO | OPEN_NONSEEKABLE | OPEN_STREAM);
	/* -ENOENT: the opener was interrupted and the kernel has no file. */
	if (fuse_reply_buf(req, reply, len) == -ENOENT)
		file_remove(pd, f->fh);
	else
		log_debug("open fh %llu flags 0%o", (unsigned long long)f->fh, fi->flags);
}

static void pilot_release(fuse_req_t req, struct fuse_file_info *fi)
{
	struct pilotd *pd = fuse_req_userdata(req);

	/* The kernel releases a file only when no call on it is in flight. */
	answer_all(&pd->parked_reads, fi->fh, EIO);
	answer_all(&pd->parked_writes, fi->fh, EIO);
	answer_all(&pd->parked_ioctls, fi->fh, EIO);
	file_remove(pd, fi->fh);
	log_debug("release fh %llu", (unsigned long long)fi->fh);
	if (!pd->files && !pd->carrier)
		byteq_drop(&pd->rxq, byteq_len(&pd->rxq)); /* nobody left to read them */
	if (!pd->files) {
		pd->tty.exclusive = false; /* as on a tty's last close */
		usb_link_last_close(pd);
	}
	fuse_reply_err(req, 0);
}

static void answer_read(struct pilotd *pd, fuse_req_t req, size_t size)
{
	size_t n = byteq_pop(&pd->rxq, pd->readbuf, min_size(size, CUSE_MAX_READ));

	fuse_reply_buf(req, (const char *)pd->readbuf, n);
	if (n)
		usb_link_rx_room(pd);
}

/*
 * Whether a read of size bytes that began at started_ms can be answered
 * now, by the rules of VMIN and VTIME (core/tty.c tty_read_rule()).
 * *deadline_ms gets the time at which that may change (0: not by time).
 */
static bool read_ready(struct pilotd *pd, size_t size, uint64_t started_ms, uint64_t *deadline_ms)
{
	struct tty_read_rule rule = tty_read_rule(&pd->tty, size);
	size_t avail = byteq_len(&pd->rxq);
	uint64_t start = started_ms;

	*deadline_ms = 0;
	if (rule.never_wait || avail >= (rule.min ? rule.min : 1))
		return true;
	if (!rule.timeout_ms || (rule.interbyte && avail == 0))
		return false; /* the inter-byte timer starts with the first byte */
	if (rule.interbyte && pd->last_rx_ms > start)
		start = pd->last_rx_ms;
	*deadline_ms = start + rule.timeout_ms;
	return now_ms() >= *deadline_ms;
}

static void pilot_read(fuse_req_t req, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct pilotd *pd = fuse_req_userdata(req);
	uint64_t deadline;

	if (size == 0) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	if (is_hung_up(pd, fi->fh)) {
		/* what arrived before the hangup, then end of file */
		answer_read(pd, req, size);
		return;
	}
	if (!pd->parked_reads.head && read_ready(pd, size, now_ms(), &deadline)) {
		answer_read(pd, req, size);
		return;
	}
	if (fi->flags & O_NONBLOCK) {
		/* n_tty: what is there, or EAGAIN */
		if (!pd->parked_reads.head && byteq_len(&pd->rxq) > 0)
			answer_read(pd, req, size);
		else
			fuse_reply_err(req, EAGAIN);
		return;
	}
	park(pd, &pd->parked_reads, req, fi->fh, NULL, size);
}

static void pilot_write(fuse_req_t req, const char *buf, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	struct pilotd *pd = fuse_req_userdata(req);
	size_t need = write_chunk(pd, size);

	if (is_hung_up(pd, fi->fh)) {
		fuse_reply_err(req, EIO);
		return;
	}
	if (!pd->parked_writes.head && byteq_space(&pd->txq) >= need) {
		byteq_push(&pd->txq, buf, need);
		fuse_reply_write(req, need);
		usb_link_kick_tx(pd);
		return;
	}
	if (fi->flags & O_NONBLOCK) {
		size_t n = pd->parked_writes.head ? 0 : byteq_push(&pd->txq, buf, size);

		if (n == 0) {
			fuse_reply_err(req, EAGAIN);
		} else {
			fuse_reply_write(req, n);
			usb_link_kick_tx(pd);
		}
		return;
	}
	park(pd, &pd->parked_writes, req, fi->fh, buf, size);
}

static void pilot_poll(fuse_req_t req, struct fuse_file_info *fi, struct fuse_pollhandle *ph)
{
	struct pilotd *pd = fuse_req_userdata(req);
	struct pilot_file *f = file_find(pd, fi->fh);
	unsigned int ev;

	if (ph) {
		if (f) {
			if (f->ph)
				fuse_pollhandle_destroy(f->ph);
			f->ph = ph;
		} else {
			fuse_pollhandle_destroy(ph);
		}
	}
	ev = current_events(pd, f);
	if (f)
		f->polled_events = ev;
	fuse_reply_poll(req, ev);
}

/* Bytes leave txq only once the handheld took them (usb_link.c out_done). */
static bool output_drained(const struct pilotd *pd)
{
	return byteq_len(&pd->txq) == 0;
}

static struct tty_context tty_context(struct pilotd *pd)
{
	struct tty_context ctx = {
		.rx_queued = byteq_len(&pd->rxq),
		.tx_queued = byteq_len(&pd->txq),
		.carrier = pd->carrier,
		.drained = output_drained(pd),
		.carrier_changes = pd->carrier_changes,
	};

	usb_link_counters(pd, &ctx.rx_bytes, &ctx.tx_bytes);
	return ctx;
}

static void flush_queues(struct pilotd *pd, unsigned int which)
{
	if (which & TTY_FLUSH_IN) {
		byteq_drop(&pd->rxq, byteq_len(&pd->rxq));
		usb_link_rx_room(pd);
	}
	if (which & TTY_FLUSH_OUT) {
		/* bytes already handed to the handheld cannot be called back */
		byteq_truncate(&pd->txq, usb_link_tx_inflight(pd));
		front_tx_room(pd);
	}
}

/*
 * Run one tty ioctl and do what the tty says.  Returns true when req was
 * answered or parked, false when it must wait for the output to drain
 * and the caller keeps it (a parked ioctl being retried).
 */
static bool run_ioctl(struct pilotd *pd, fuse_req_t req, uint64_t fh, const struct tty_ioctl *io,
		      bool parked)
{
	struct tty_context ctx = tty_context(pd);
	struct tty_reply r;
	struct parked *p;

	tty_ioctl(&pd->tty, io, &ctx, &r);
	switch (r.action) {
	case TTY_FETCH: {
		struct iovec in = { (void *)io->arg, r.fetch_in };
		struct iovec out = { (void *)io->arg, r.fetch_out };

		fuse_reply_ioctl_retry(req, r.fetch_in ? &in : NULL, r.fetch_in ? 1 : 0,
				       r.fetch_out ? &out : NULL, r.fetch_out ? 1 : 0);
		return true;
	}
	case TTY_WAIT_DRAIN:
	case TTY_WAIT_MODEM:
		if (parked)
			return false;
		p = park(pd, &pd->parked_ioctls, req, fh, io->in, io->in_len);
		if (p) {
			p->cmd = io->cmd;
			p->arg = io->arg;
			p->out_size = io->out_len;
			p->compat = io->compat;
		}
		return true;
	case TTY_ANSWER: break;
	}
	if (r.flush)
		flush_queues(pd, r.flush);
	if (r.output_changed)
		usb_link_kick_tx(pd);
	if (r.err)
		fuse_reply_err(req, r.err);
	else
		fuse_reply_ioctl(req, 0, r.out_len ? r.out : NULL, r.out_len);
	return true;
}

static void pilot_ioctl(fuse_req_t req, int cmd, void *arg, struct fuse_file_info *fi,
			unsigned int flags, const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	struct pilotd *pd = fuse_req_userdata(req);
	struct tty_ioctl io = {
		.cmd = (unsigned int)cmd,
		.arg = (uintptr_t)arg,
		.in = in_buf,
		.in_len = in_bufsz,
		.out_len = out_bufsz,
		.compat = flags & FUSE_IOCTL_COMPAT,
	};

	/* a hung-up tty answers EIO (drivers/tty/tty_io.c hung_up_tty_ioctl) */
	if (is_hung_up(pd, fi->fh)) {
		fuse_reply_err(req, EIO);
		return;
	}
	run_ioctl(pd, req, fi->fh, &io, false);
}

/* Retry ioctls that wait for the output to drain; keep those still waiting. */
static void serve_drains(struct pilotd *pd)
{
	struct parked *p = pd->parked_ioctls.head;

	while (p && output_drained(pd)) {
		struct parked *next = p->next;
		struct tty_ioctl io = {
			.cmd = p->cmd,
			.arg = p->arg,
			.in = p->data,
			.in_len = p->size,
			.out_len = p->out_size,
			.compat = p->compat,
		};

		if (p->cmd != TIOCMIWAIT && run_ioctl(pd, p->req, p->fh, &io, true)) {
			parked_take(&pd->parked_ioctls, p);
			parked_free(p);
		}
		p = next;
	}
}

/* TIOCMIWAIT: the carrier (TIOCM_CD, DSR, CTS) changed. */
static void wake_modem_waiters(struct pilotd *pd)
{
	struct parked *p = pd->parked_ioctls.head;

	pd->carrier_changes++;
	while (p) {
		struct parked *next = p->next;

		if (p->cmd == TIOCMIWAIT) {
			parked_take(&pd->parked_ioctls, p);
			fuse_reply_ioctl(p->req, 0, NULL, 0);
			parked_free(p);
		}
		p = next;
	}
}

static const struct cuse_lowlevel_ops pilot_ops = {
	.init_done = pilot_init_done,
	.open = pilot_open,
	.read = pilot_read,
	.write = pilot_write,
	.release = pilot_release,
	.ioctl = pilot_ioctl,
	.poll = pilot_poll,
};

/* Answer parked reads in order while the head one is ready. */
static void serve_reads(struct pilotd *pd)
{
	struct parked *p;
	uint64_t deadline;

	while ((p = pd->parked_reads.head) && read_ready(pd, p->size, p->started_ms, &deadline)) {
		parked_take(&pd->parked_reads, p);
		answer_read(pd, p->req, p->size);
		parked_free(p);
	}
}

void front_rx_ready(struct pilotd *pd)
{
	pd->last_rx_ms = now_ms();
	serve_reads(pd);
}

void front_tx_room(struct pilotd *pd)
{
	struct parked *p;
	bool gave = false;

	while ((p = pd->parked_writes.head)) {
		size_t need = write_chunk(pd, p->size);

		if (byteq_space(&pd->txq) < need)
			break;
		byteq_push(&pd->txq, p->data, need);
		parked_take(&pd->parked_writes, p);
		fuse_reply_write(p->req, need);
		parked_free(p);
		gave = true;
	}
	if (gave)
		usb_link_kick_tx(pd);
	serve_drains(pd);
}

/* Arm the timer for the head read's VTIME deadline, or disarm it. */
static void arm_read_timer(struct pilotd *pd)
{
	struct itimerspec its = { 0 };
	struct parked *p = pd->parked_reads.head;
	uint64_t deadline = 0;

	if (p)
		read_ready(pd, p->size, p->started_ms, &deadline);
	if (deadline) {
		its.it_value.tv_sec = (time_t)(deadline / 1000);
		its.it_value.tv_nsec = (long)(deadline % 1000) * 1000000;
	}
	timerfd_settime(pd->read_timer.fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void read_timer_ready(struct pilotd *pd, struct watch *w, uint32_t events)
{
	uint64_t expirations;

	if (read(w->fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
		log_warn("read timer: %s", strerror(errno));
	serve_reads(pd);
}

/* After each round of events: late answers, timers and poll notifications. */
void front_after_events(struct pilotd *pd)
{
	unsigned int ev;

	if (pd->interrupts_pending) {
		pd->interrupts_pending = false;
		answer_interrupted(&pd->parked_reads);
		answer_interrupted(&pd->parked_writes);
		answer_interrupted(&pd->parked_ioctls);
	}
	arm_read_timer(pd);
	for (struct pilot_file *f = pd->files; f; f = f->next) {
		ev = current_events(pd, f);
		if (ev != f->polled_events && f->ph)
			fuse_lowlevel_notify_poll(f->ph);
		f->polled_events = ev;
	}
}

/* Bytes flow: what is left in rxq belongs to a handheld that has gone. */
void front_carrier_up(struct pilotd *pd)
{
	size_t stale = byteq_len(&pd->rxq);

	if (stale) {
		log_warn("dropped %zu unread bytes from the previous handheld", stale);
		byteq_drop(&pd->rxq, stale);
	}
	pd->carrier = true;
	wake_modem_waiters(pd);
}

/*
 * The handheld left: hang up every open file, as a tty does on carrier
 * loss.  Bytes already received can still be read; after them reads
 * return 0, writes fail with EIO and poll reports POLLHUP.  Files opened
 * from now on start a new session that waits for the next handheld.
 */
void front_hangup(struct pilotd *pd)
{
	unsigned int n = 0;

	pd->carrier = false;
	for (struct pilot_file *f = pd->files; f; f = f->next, n++)
		f->hung_up = true;
	/* A parked read means rxq is empty: end of file. */
	while (pd->parked_reads.head) {
		struct parked *p = parked_take(&pd->parked_reads, pd->parked_reads.head);

		fuse_reply_buf(p->req, NULL, 0);
		parked_free(p);
	}
	answer_all(&pd->parked_writes, PARKED_ANY_FH, EIO);
	wake_modem_waiters(pd);
	answer_all(&pd->parked_ioctls, PARKED_ANY_FH, EIO);
	if (n)
		log_info("hung up %u open file%s", n, n == 1 ? "" : "s");
}

static void cuse_ready(struct pilotd *pd, struct watch *w, uint32_t events)
{
	struct fuse_buf buf = { .mem = pd->fbuf_mem, .size = pd->fbuf_size };
	int r = fuse_session_receive_buf(pd->se, &buf);

	pd->fbuf_mem = buf.mem;
	pd->fbuf_size = buf.size;
	if (r == -EINTR || r == -EAGAIN)
		return;
	if (r <= 0 || fuse_session_exited(pd->se)) {
		if (!pd->stop)
			log_err("the kernel closed the CUSE connection (%s)",
				r < 0 ? strerror(-r) : "device removed");
		pd->stop = true;
		pd->exit_status = 1;
		return;
	}
	fuse_session_process_buf(pd->se, &buf);
}

int front_start(struct pilotd *pd, const char *argv0)
{
	char devinfo[128];
	const char *dev_info_argv[] = { devinfo };
	struct cuse_info ci = {
		.dev_info_argc = 1,
		.dev_info_argv = dev_info_argv,
		.flags = CUSE_UNRESTRICTED_IOCTL,
	};
	/* -f: pilotd does not daemonize; -s: one thread, ours */
	char *argv[] = { (char *)argv0, "-f", "-s", NULL };
	int multithreaded, fd, r;

	snprintf(devinfo, sizeof(devinfo), "DEVNAME=%s", pd->cfg.devname);
	pd->readbuf = malloc(CUSE_MAX_READ);
	if (!pd->readbuf)
		return -ENOMEM;
	pd->se = cuse_lowlevel_setup(3, argv, &ci, &pilot_ops, &multithreaded, pd);
	if (!pd->se) {
		log_err("cannot create /dev/%s through /dev/cuse (is the cuse module loaded?)",
			pd->cfg.devname);
		return -ENODEV;
	}
	fd = fuse_session_fd(pd->se);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	pd->cuse_watch = (struct watch){ .fd = fd, .ready = cuse_ready };
	r = loop_add(pd, &pd->cuse_watch, EPOLLIN);
	if (r < 0)
		return r;
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (fd < 0)
		return -errno;
	pd->read_timer = (struct watch){ .fd = fd, .ready = read_timer_ready };
	return loop_add(pd, &pd->read_timer, EPOLLIN);
}

/* Stop taking requests: answer everything parked. */
void front_shutdown(struct pilotd *pd)
{
	answer_all(&pd->parked_reads, PARKED_ANY_FH, EIO);
	answer_all(&pd->parked_writes, PARKED_ANY_FH, EIO);
	answer_all(&pd->parked_ioctls, PARKED_ANY_FH, EIO);
}

void front_stop(struct pilotd *pd)
{
	if (pd->se) {
		loop_del(pd, &pd->cuse_watch);
		/* Closing the CUSE fd removes /dev/pilot. */
		cuse_lowlevel_teardown(pd->se);
		pd->se = NULL;
	}
	while (pd->files)
		file_remove(pd, pd->files->fh);
	if (pd->read_timer.ready) {
		loop_del(pd, &pd->read_timer);
		close(pd->read_timer.fd);
	}
	free(pd->fbuf_mem);
	free(pd->readbuf);
}
