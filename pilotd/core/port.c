// SPDX-License-Identifier: MIT
/*
 * The port's session rules; see port.h.  Answers leave only through the
 * hooks, and a request that cannot be answered yet is parked; parked.h
 * has the exactly-once rule.
 */
#include <asm/ioctls.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>

#include "log.h"
#include "port.h"

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

int port_init(struct port *p, const struct port_config *cfg, const struct port_hooks *h)
{
	*p = (struct port){ .h = *h, .cfg = *cfg };
	tty_init(&p->tty);
	p->readbuf = malloc(cfg->read_max);
	if (!p->readbuf || byteq_init(&p->rxq, cfg->rxq_size) < 0 ||
	    byteq_init(&p->txq, cfg->txq_size) < 0) {
		port_free(p);
		return -ENOMEM;
	}
	return 0;
}

static struct port_file *file_find(struct port *p, uint64_t fh)
{
	for (struct port_file *f = p->files; f; f = f->next)
		if (f->fh == fh)
			return f;
	return NULL;
}

static void file_remove(struct port *p, uint64_t fh)
{
	for (struct port_file **pp = &p->files; *pp; pp = &(*pp)->next) {
		struct port_file *f = *pp;

		if (f->fh != fh)
			continue;
		*pp = f->next;
		if (!f->hung_up)
			p->live_files--;
		if (f->poll_handle)
			p->h.drop_poll_handle(p->h.ctx, f->poll_handle);
		free(f);
		return;
	}
}

void port_free(struct port *p)
{
	while (p->files)
		file_remove(p, p->files->fh);
	byteq_free(&p->rxq);
	byteq_free(&p->txq);
	free(p->readbuf);
	p->readbuf = NULL;
}

/* ---- parking and answering ---- */

static struct parked *park(struct port *p, struct parked_list *l, void *req, uint64_t fh,
			   const void *data, size_t size)
{
	struct parked *e = parked_add(l, req, fh, data, size);

	if (!e)
		p->h.answer_err(p->h.ctx, req, ENOMEM);
	else
		p->h.parked(p->h.ctx, req);
	return e;
}

/* Answer every parked request in l that belongs to fh with err. */
static void answer_all(struct port *p, struct parked_list *l, uint64_t fh, int err)
{
	struct parked *e;

	while ((e = parked_first_of(l, fh))) {
		parked_take(l, e);
		p->h.answer_err(p->h.ctx, e->req, err);
		parked_free(e);
	}
}

static void answer_interrupted(struct port *p, struct parked_list *l)
{
	struct parked *e;

	while ((e = parked_first_interrupted(l))) {
		parked_take(l, e);
		p->h.answer_err(p->h.ctx, e->req, EINTR);
		parked_free(e);
	}
}

void port_interrupt(struct port *p, void *req)
{
	struct parked_list *lists[] = { &p->reads, &p->writes, &p->ioctls, &p->opens };

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		struct parked *e = parked_find(lists[i], req);

		if (e) {
			e->interrupted = true;
			p->interrupts_pending = true;
			return;
		}
	}
}

/* ---- open and release ---- */

static void open_now(struct port *p, void *req)
{
	struct port_file *f = calloc(1, sizeof(*f));

	if (!f) {
		p->h.answer_err(p->h.ctx, req, ENOMEM);
		return;
	}
	f->fh = ++p->next_fh;
	f->next = p->files;
	p->files = f;
	if (p->live_files++ == 0)
		p->h.rx_room(p->h.ctx); /* somebody listens: take bytes again */
	if (p->h.answer_open(p->h.ctx, req, f->fh) < 0)
		port_release(p, f->fh); /* the opener was interrupted */
}

void port_open(struct port *p, void *req, const struct port_open_args *a)
{
	/* TIOCEXCL: as on a tty, only root may open it again */
	if (p->tty.exclusive && a->uid != 0) {
		p->h.answer_err(p->h.ctx, req, EBUSY);
		return;
	}
	/* tty_port_block_til_ready(): without CLOCAL, wait for the carrier */
	if (!p->carrier && !(p->tty.termios.c_cflag & CLOCAL) && !a->nonblock) {
		park(p, &p->opens, req, PARKED_ANY_FH, NULL, 0);
		return;
	}
	open_now(p, req);
}

void port_release(struct port *p, uint64_t fh)
{
	answer_all(p, &p->reads, fh, EIO);
	answer_all(p, &p->writes, fh, EIO);
	answer_all(p, &p->ioctls, fh, EIO);
	file_remove(p, fh);
	if (p->live_files == 0 && byteq_len(&p->rxq)) {
		/* nobody is left to read them, and no later opener may */
		p->stats.rx_discarded += byteq_len(&p->rxq);
		byteq_drop(&p->rxq, byteq_len(&p->rxq));
	}
	if (!p->files) {
		p->tty.exclusive = false; /* as on a tty's last close */
		p->h.last_close(p->h.ctx);
	}
}

/* ---- read ---- */

/*
 * Whether a read of size bytes that began at started_ms can be answered
 * at now, by the rules of VMIN and VTIME (tty.c tty_read_rule()).
 * *deadline gets the time at which that may change (0: not by time).
 */
static bool read_ready(const struct port *p, size_t size, uint64_t started_ms, uint64_t now,
		       uint64_t *deadline)
{
	struct tty_read_rule rule = tty_read_rule(&p->tty, size);
	size_t avail = byteq_len(&p->rxq);
	uint64_t start = started_ms;

	*deadline = 0;
	if (rule.never_wait || avail >= (rule.min ? rule.min : 1))
		return true;
	if (!rule.timeout_ms || (rule.interbyte && avail == 0))
		return false; /* the inter-byte timer starts with the first byte */
	if (rule.interbyte && p->last_rx_ms > start)
		start = p->last_rx_ms;
	*deadline = start + rule.timeout_ms;
	return now >= *deadline;
}

static void answer_read(struct port *p, void *req, size_t size)
{
	size_t n = byteq_pop(&p->rxq, p->readbuf, min_size(size, p->cfg.read_max));

	p->h.answer_data(p->h.ctx, req, p->readbuf, n);
	if (n && p->live_files)
		p->h.rx_room(p->h.ctx);
}

static bool is_hung_up(struct port *p, uint64_t fh)
{
	struct port_file *f = file_find(p, fh);

	return f && f->hung_up;
}

void port_read(struct port *p, void *req, uint64_t fh, size_t size, bool nonblock, uint64_t now)
{
	uint64_t deadline;
	struct parked *e;

	if (size == 0 || is_hung_up(p, fh)) {
		/*
		 * A hung-up file reads what arrived before the hangup, then
		 * end of file; once the next handheld is up, those bytes are
		 * gone (port_carrier_up()) and what is in rxq is not its own.
		 */
		if (p->carrier && size)
			p->h.answer_data(p->h.ctx, req, NULL, 0);
		else
			answer_read(p, req, size);
		return;
	}
	if (!p->reads.head && read_ready(p, size, now, now, &deadline)) {
		answer_read(p, req, size);
		return;
	}
	if (nonblock) {
		/* n_tty: what is there, or EAGAIN */
		if (!p->reads.head && byteq_len(&p->rxq) > 0)
			answer_read(p, req, size);
		else
			p->h.answer_err(p->h.ctx, req, EAGAIN);
		return;
	}
	e = park(p, &p->reads, req, fh, NULL, size);
	if (e)
		e->started_ms = now;
}

/* Answer parked reads in order while the head one is ready. */
static void serve_reads(struct port *p, uint64_t now)
{
	struct parked *e;
	uint64_t deadline;

	while ((e = p->reads.head) && read_ready(p, e->size, e->started_ms, now, &deadline)) {
		parked_take(&p->reads, e);
		answer_read(p, e->req, e->size);
		parked_free(e);
	}
}

/* ---- write ---- */

/*
 * How much of a write txq takes: all of it, once it fits.  The front's
 * requests are smaller than txq (the kernel sends at most 128 KiB), so
 * blocking writes are never short; the cap only guards the invariant.
 */
static size_t write_chunk(const struct port *p, size_t size)
{
	return min_size(size, p->txq.cap);
}

void port_write(struct port *p, void *req, uint64_t fh, const void *buf, size_t size,
		bool nonblock)
{
	size_t need = write_chunk(p, size);

	if (is_hung_up(p, fh)) {
		p->h.answer_err(p->h.ctx, req, EIO);
		return;
	}
	if (!p->carrier) {
		/* a line with no device on it: the bytes are gone */
		p->stats.tx_discarded += size;
		p->h.answer_written(p->h.ctx, req, size);
		return;
	}
	if (!p->writes.head && byteq_space(&p->txq) >= need) {
		byteq_push(&p->txq, buf, need);
		p->h.tx_ready(p->h.ctx); /* the transfer first: the writer waits less */
		p->h.answer_written(p->h.ctx, req, need);
		return;
	}
	if (nonblock) {
		size_t n = p->writes.head ? 0 : byteq_push(&p->txq, buf, size);

		if (n == 0) {
			p->h.answer_err(p->h.ctx, req, EAGAIN);
		} else {
			p->h.tx_ready(p->h.ctx);
			p->h.answer_written(p->h.ctx, req, n);
		}
		return;
	}
	park(p, &p->writes, req, fh, buf, size);
}

static void serve_writes(struct port *p)
{
	struct parked *e, *taken = NULL, **tail = &taken;

	while ((e = p->writes.head)) {
		size_t need = write_chunk(p, e->size);

		if (byteq_space(&p->txq) < need)
			break;
		byteq_push(&p->txq, e->data, need);
		parked_take(&p->writes, e);
		e->size = need;
		e->next = NULL;
		*tail = e;
		tail = &e->next;
	}
	if (!taken)
		return;
	p->h.tx_ready(p->h.ctx); /* the transfer first, then the writers */
	while ((e = taken)) {
		taken = e->next;
		p->h.answer_written(p->h.ctx, e->req, e->size);
		parked_free(e);
	}
}

/* ---- poll ---- */

static unsigned int current_events(const struct port *p, const struct port_file *f)
{
	unsigned int ev = 0;

	/* What a hung-up tty reports (drivers/tty/tty_io.c hung_up_tty_poll) */
	if (f && f->hung_up)
		return POLLIN | POLLOUT | POLLERR | POLLHUP | POLLRDNORM | POLLWRNORM;
	if (byteq_len(&p->rxq) > 0)
		ev |= POLLIN | POLLRDNORM;
	if (!p->carrier || (byteq_space(&p->txq) > 0 && !p->writes.head))
		ev |= POLLOUT | POLLWRNORM;
	return ev;
}

unsigned int port_poll(struct port *p, uint64_t fh, void *poll_handle)
{
	struct port_file *f = file_find(p, fh);
	unsigned int ev;

	if (poll_handle) {
		if (f) {
			if (f->poll_handle)
				p->h.drop_poll_handle(p->h.ctx, f->poll_handle);
			f->poll_handle = poll_handle;
		} else {
			p->h.drop_poll_handle(p->h.ctx, poll_handle);
		}
	}
	ev = current_events(p, f);
	if (f)
		f->polled_events = ev;
	return ev;
}

/* ---- ioctl ---- */

static void serve_drains(struct port *p);

/* Bytes leave txq only once the handheld took them (port_tx_done). */
static bool output_drained(const struct port *p)
{
	return byteq_len(&p->txq) == 0;
}

static void flush_queues(struct port *p, unsigned int which)
{
	if (which & TTY_FLUSH_IN) {
		byteq_drop(&p->rxq, byteq_len(&p->rxq));
		if (p->live_files)
			p->h.rx_room(p->h.ctx);
	}
	if (which & TTY_FLUSH_OUT) {
		/* bytes already handed to the handheld cannot be called back */
		byteq_truncate(&p->txq, p->tx_inflight);
		serve_writes(p);
	}
}

/*
 * Run one tty ioctl and do what the tty says.  Returns true when req was
 * answered or parked, false when it must wait for the output to drain
 * and the caller keeps it (a parked ioctl being retried).
 */
static bool run_ioctl(struct port *p, void *req, uint64_t fh, const struct tty_ioctl *io,
		      bool parked)
{
	struct tty_context ctx = {
		.rx_queued = byteq_len(&p->rxq),
		.tx_queued = byteq_len(&p->txq),
		.carrier = p->carrier,
		.drained = output_drained(p),
		.carrier_changes = p->carrier_changes,
		.rx_bytes = p->stats.rx_bytes,
		.tx_bytes = p->stats.tx_bytes,
	};
	bool was_stopped = p->tty.output_stopped;
	struct tty_reply r;
	struct parked *e;

	tty_ioctl(&p->tty, io, &ctx, &r);
	switch (r.action) {
	case TTY_FETCH:
		p->h.answer_ioctl_fetch(p->h.ctx, req, io->arg, r.fetch_in, r.fetch_out);
		return true;
	case TTY_WAIT_DRAIN:
	case TTY_WAIT_MODEM:
		if (parked)
			return false;
		e = park(p, &p->ioctls, req, fh, io->in, io->in_len);
		if (e) {
			e->cmd = io->cmd;
			e->arg = io->arg;
			e->out_size = io->out_len;
			e->compat = io->compat;
		}
		return true;
	case TTY_ANSWER: break;
	}
	if (r.flush)
		flush_queues(p, r.flush);
	if (r.err)
		p->h.answer_err(p->h.ctx, req, r.err);
	else
		p->h.answer_ioctl(p->h.ctx, req, r.out_len ? r.out : NULL, r.out_len);
	if (r.output_changed && was_stopped && !p->tty.output_stopped)
		p->h.tx_ready(p->h.ctx);
	return true;
}

void port_ioctl(struct port *p, void *req, uint64_t fh, const struct tty_ioctl *io)
{
	/* a hung-up tty answers EIO (drivers/tty/tty_io.c hung_up_tty_ioctl) */
	if (is_hung_up(p, fh)) {
		p->h.answer_err(p->h.ctx, req, EIO);
		return;
	}
	run_ioctl(p, req, fh, io, false);
	/* TCFLSH may have emptied txq: drains waiting on it are done */
	serve_drains(p);
}

/* Retry ioctls that wait for the output to drain; keep those still waiting. */
static void serve_drains(struct port *p)
{
	struct parked *e = p->ioctls.head;

	while (e && output_drained(p)) {
		struct parked *next = e->next;
		struct tty_ioctl io = {
			.cmd = e->cmd,
			.arg = e->arg,
			.in = e->data,
			.in_len = e->size,
			.out_len = e->out_size,
			.compat = e->compat,
		};

		if (e->cmd != TIOCMIWAIT && run_ioctl(p, e->req, e->fh, &io, true)) {
			parked_take(&p->ioctls, e);
			parked_free(e);
		}
		e = next;
	}
}

/* TIOCMIWAIT: the carrier (TIOCM_CD, DSR, CTS) changed. */
static void wake_modem_waiters(struct port *p)
{
	struct parked *e = p->ioctls.head;

	p->carrier_changes++;
	while (e) {
		struct parked *next = e->next;

		if (e->cmd == TIOCMIWAIT) {
			parked_take(&p->ioctls, e);
			p->h.answer_ioctl(p->h.ctx, e->req, NULL, 0);
			parked_free(e);
		}
		e = next;
	}
}

/* ---- rounds, timers, shutdown ---- */

uint64_t port_after_events(struct port *p, uint64_t now)
{
	uint64_t deadline = 0;

	/* data that came in the round wins over an interrupt, as in n_tty */
	serve_reads(p, now);
	if (p->interrupts_pending) {
		p->interrupts_pending = false;
		answer_interrupted(p, &p->reads);
		answer_interrupted(p, &p->writes);
		answer_interrupted(p, &p->ioctls);
		answer_interrupted(p, &p->opens);
	}
	if (p->reads.head)
		read_ready(p, p->reads.head->size, p->reads.head->started_ms, now, &deadline);
	for (struct port_file *f = p->files; f; f = f->next) {
		unsigned int ev = current_events(p, f);

		if (ev != f->polled_events && f->poll_handle)
			p->h.notify_poll(p->h.ctx, f->poll_handle);
		f->polled_events = ev;
	}
	return deadline;
}

void port_shutdown(struct port *p)
{
	answer_all(p, &p->reads, PARKED_ANY_FH, EIO);
	answer_all(p, &p->writes, PARKED_ANY_FH, EIO);
	answer_all(p, &p->ioctls, PARKED_ANY_FH, EIO);
	answer_all(p, &p->opens, PARKED_ANY_FH, EIO);
}

/* ---- the transport's side ---- */

void port_carrier_up(struct port *p)
{
	size_t stale = byteq_len(&p->rxq);
	struct parked *e;

	/* what is left in rxq belongs to a handheld that has gone */
	if (stale) {
		log_warn("dropped %zu unread bytes from the previous handheld", stale);
		p->stats.rx_discarded += stale;
		byteq_drop(&p->rxq, stale);
	}
	p->carrier = true;
	p->stats.rx_bytes = p->stats.tx_bytes = 0;
	wake_modem_waiters(p);
	while ((e = p->opens.head)) {
		parked_take(&p->opens, e);
		open_now(p, e->req);
		parked_free(e);
	}
}

/*
 * The handheld left: hang up every open file, as usb-serial does on
 * disconnect (tty_port_tty_vhangup(), whatever CLOCAL says).  Bytes for
 * the handheld that it did not take are discarded.
 */
void port_carrier_down(struct port *p)
{
	unsigned int n = 0;

	if (!p->carrier)
		return;
	p->carrier = false;
	for (struct port_file *f = p->files; f; f = f->next) {
		if (!f->hung_up) {
			f->hung_up = true;
			n++;
		}
	}
	p->live_files = 0;
	/* A parked read means rxq is empty: end of file. */
	while (p->reads.head) {
		struct parked *e = parked_take(&p->reads, p->reads.head);

		p->h.answer_data(p->h.ctx, e->req, NULL, 0);
		parked_free(e);
	}
	answer_all(p, &p->writes, PARKED_ANY_FH, EIO);
	wake_modem_waiters(p);
	answer_all(p, &p->ioctls, PARKED_ANY_FH, EIO);
	if (byteq_len(&p->txq)) {
		log_warn("discarded %zu bytes that were queued for the handheld",
			 byteq_len(&p->txq));
		p->stats.tx_discarded += byteq_len(&p->txq);
		byteq_drop(&p->txq, byteq_len(&p->txq));
	}
	p->tx_inflight = 0;
	p->stats.hangups++;
	if (n)
		log_info("hung up %u open file%s", n, n == 1 ? "" : "s");
}

size_t port_rx_room(const struct port *p)
{
	return p->live_files ? byteq_space(&p->rxq) : 0;
}

void port_rx(struct port *p, const void *buf, size_t len, uint64_t now)
{
	size_t n = p->live_files ? byteq_push(&p->rxq, buf, len) : 0;

	p->stats.rx_bytes += len;
	if (n < len) {
		/* nobody listens (or, never by the transport's rules, rxq is full) */
		p->stats.rx_discarded += len - n;
		log_debug("discarded %zu received bytes: %s", len - n,
			  p->live_files ? "no room" : "no file is open");
	}
	/* Waiting reads are answered after the round (port_after_events()),
	 * so that every packet that came in one round goes in one answer. */
	if (n)
		p->last_rx_ms = now;
}

size_t port_tx_take(struct port *p, void *buf, size_t max)
{
	if (!p->carrier || p->tty.output_stopped)
		return 0;
	p->tx_inflight = byteq_peek(&p->txq, 0, buf, max);
	return p->tx_inflight;
}

void port_tx_done(struct port *p, size_t sent)
{
	if (!p->carrier)
		return; /* txq was discarded at hangup */
	byteq_drop(&p->txq, min_size(sent, p->tx_inflight));
	p->stats.tx_bytes += sent;
	p->tx_inflight = 0;
	serve_writes(p);
	serve_drains(p);
}
