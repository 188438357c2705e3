// SPDX-License-Identifier: MIT
/*
 * The port's session rules; see port.h.  Answers leave only through the
 * hooks, and a request that cannot be answered yet is parked; parked.h
 * has the exactly-once rule.  Two more rules keep it exact when a hook
 * calls back into the port (port.h "Re-entry"):
 *   - a parked request is taken off its list before it is answered, and
 *     a loop over a list re-reads the list's head after every answer;
 *   - the transport hooks run only from run_due_hooks(), when no request
 *     is in hand on any list.
 */
#include <asm/ioctls.h>
#include <errno.h>
#include <linux/serial.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

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
	if (cfg->closing_wait_ms) /* TIOCSSERIAL may change it later */
		p->tty.closing_wait = (uint16_t)(cfg->closing_wait_ms / 10);
	p->readbuf = malloc(cfg->read_max);
	if (!p->readbuf || byteq_init(&p->rxq, cfg->rxq_size) < 0 ||
	    byteq_init(&p->txq, cfg->txq_size) < 0) {
		port_free(p);
		return -ENOMEM;
	}
	return 0;
}

/* ---- the transport hooks, called only when the port is done ---- */

static void due(struct port *p, unsigned int what)
{
	p->due |= what;
}

/*
 * Call the transport hooks that came due.  Each may call back into the
 * port (a departure from inside tx_ready, say); hooks that come due
 * meanwhile are called by this loop, never by a nested one.
 */
static void run_due_hooks(struct port *p)
{
	if (p->in_hooks)
		return;
	p->in_hooks = true;
	while (p->due) {
		unsigned int what = p->due;

		p->due = 0;
		if ((what & PORT_DUE_TX_ABORT) && p->h.tx_abort)
			p->h.tx_abort(p->h.ctx);
		if (what & PORT_DUE_LAST_CLOSE)
			p->h.last_close(p->h.ctx);
		if (what & PORT_DUE_RX_ROOM)
			p->h.rx_room(p->h.ctx);
		if (what & PORT_DUE_TX)
			p->h.tx_ready(p->h.ctx);
	}
	p->in_hooks = false;
}

/* ---- open files ---- */

static struct port_file *file_find(struct port *p, uint64_t fh)
{
	for (struct port_file *f = p->files; f; f = f->next)
		if (f->fh == fh)
			return f;
	return NULL;
}

/* Is an open file of rxq's session left (it may still read those bytes)? */
static bool rxq_has_reader(const struct port *p)
{
	for (const struct port_file *f = p->files; f; f = f->next)
		if (f->session == p->rxq_session)
			return true;
	return false;
}

/* The received bytes that file f may read: its own session's only. */
static size_t rx_avail(const struct port *p, const struct port_file *f)
{
	return f && f->session == p->rxq_session ? byteq_len(&p->rxq) : 0;
}

static void drop_rxq(struct port *p)
{
	p->stats.rx_discarded += byteq_len(&p->rxq);
	byteq_drop(&p->rxq, byteq_len(&p->rxq));
}

static void file_remove(struct port *p, uint64_t fh)
{
	for (struct port_file **pp = &p->files; *pp; pp = &(*pp)->next) {
		struct port_file *f = *pp;

		if (f->fh != fh)
			continue;
		*pp = f->next;
		p->nfiles--;
		if (!f->hung_up)
			p->live_files--;
		if (!f->hung_up && f->listening)
			p->listening--;
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

size_t port_parked_count(const struct port *p)
{
	return p->reads.count + p->writes.count + p->ioctls.count + p->opens.count;
}

/* A bound was reached: answer err at once, and say so (not every time). */
static void refuse(struct port *p, void *req, int err, const char *bound, size_t value)
{
	if (p->stats.refused++ % 1000 == 0)
		log_warn("refused a request (%s): at most %zu %s; %llu refused so far",
			 strerror(err), value, bound, (unsigned long long)p->stats.refused);
	p->h.answer_err(p->h.ctx, req, err);
}

/* One user other than root holds a quarter of a bound at most. */
static size_t share(uint32_t uid, size_t bound)
{
	return uid == 0 ? bound : bound / 4;
}

/* What uid has parked: requests, and the bytes of its writes. */
static size_t parked_by(const struct port *p, uint32_t uid, size_t *write_bytes)
{
	const struct parked_list *lists[] = { &p->reads, &p->writes, &p->ioctls, &p->opens };
	size_t n = 0;

	*write_bytes = 0;
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		for (const struct parked *e = lists[i]->head; e; e = e->next) {
			if (e->uid != uid)
				continue;
			n++;
			if (lists[i] == &p->writes)
				*write_bytes += e->size;
		}
	}
	return n;
}

static struct parked *park(struct port *p, struct parked_list *l, void *req, uint64_t fh,
			   uint32_t uid, const void *data, size_t size)
{
	size_t bytes, n = parked_by(p, uid, &bytes);
	size_t write_size = l == &p->writes ? size : 0;
	struct parked *e;

	if (port_parked_count(p) >= p->cfg.parked_max ||
	    n >= share(uid, p->cfg.parked_max)) {
		refuse(p, req, ENOBUFS, "waiting requests (a quarter for one user)",
		       p->cfg.parked_max);
		return NULL;
	}
	if (p->parked_write_bytes + write_size > p->cfg.parked_write_bytes ||
	    bytes + write_size > share(uid, p->cfg.parked_write_bytes)) {
		refuse(p, req, ENOBUFS, "bytes of waiting writes (a quarter for one user)",
		       p->cfg.parked_write_bytes);
		return NULL;
	}
	e = parked_add(l, req, fh, data, size);
	if (!e) {
		p->h.answer_err(p->h.ctx, req, ENOMEM);
		return NULL;
	}
	e->uid = uid;
	if (l == &p->writes)
		p->parked_write_bytes += size;
	p->h.parked(p->h.ctx, req); /* may mark it interrupted at once */
	return e;
}

/* Take e off l: the caller now must answer e->req and free e. */
static struct parked *unpark(struct port *p, struct parked_list *l, struct parked *e)
{
	parked_take(l, e);
	if (l == &p->writes)
		p->parked_write_bytes -= e->size;
	return e;
}

static void answer_err_free(struct port *p, struct parked *e, int err)
{
	p->h.answer_err(p->h.ctx, e->req, err);
	parked_free(e);
}

/* Answer every parked request in l that belongs to fh with err. */
static void answer_all(struct port *p, struct parked_list *l, uint64_t fh, int err)
{
	struct parked *e;

	while ((e = parked_first_of(l, fh)))
		answer_err_free(p, unpark(p, l, e), err);
}

static void answer_interrupted(struct port *p, struct parked_list *l)
{
	struct parked *e;

	while ((e = parked_first_interrupted(l)))
		answer_err_free(p, unpark(p, l, e), EINTR);
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

static void release_file(struct port *p, uint64_t fh);

static unsigned int files_of(const struct port *p, uint32_t uid)
{
	unsigned int n = 0;

	for (const struct port_file *f = p->files; f; f = f->next)
		n += f->uid == uid;
	return n;
}

static void open_now(struct port *p, void *req, uint32_t uid)
{
	struct port_file *f;

	if (p->nfiles >= p->cfg.files_max || files_of(p, uid) >= share(uid, p->cfg.files_max)) {
		refuse(p, req, ENFILE, "open files (a quarter for one user)", p->cfg.files_max);
		return;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		p->h.answer_err(p->h.ctx, req, ENOMEM);
		return;
	}
	f->fh = ++p->next_fh;
	f->uid = uid;
	/* opened with no handheld: it belongs to the next one */
	f->session = p->carrier ? p->session : p->session + 1;
	f->next = p->files;
	p->files = f;
	p->nfiles++;
	p->live_files++;
	if (p->h.answer_open(p->h.ctx, req, f->fh) < 0)
		release_file(p, f->fh); /* the opener was interrupted */
}

/* May a blocking open go ahead now? */
static bool open_may_go(const struct port *p)
{
	/* tty_port_block_til_ready(): without CLOCAL, wait for the carrier */
	return !p->closing && (p->carrier || (p->tty.termios.c_cflag & CLOCAL));
}

static void serve_opens(struct port *p)
{
	struct parked *e;

	while ((e = p->opens.head) && open_may_go(p)) {
		unpark(p, &p->opens, e);
		open_now(p, e->req, e->uid);
		parked_free(e);
	}
}

void port_open(struct port *p, void *req, const struct port_open_args *a)
{
	/* TIOCEXCL: as on a tty, only root may open it again */
	if (p->tty.exclusive && a->uid != 0)
		p->h.answer_err(p->h.ctx, req, EBUSY);
	else if (open_may_go(p))
		open_now(p, req, a->uid);
	else if (a->nonblock && p->closing)
		p->h.answer_err(p->h.ctx, req, EAGAIN); /* the last session's output drains */
	else if (a->nonblock)
		open_now(p, req, a->uid);
	else
		park(p, &p->opens, req, PARKED_ANY_FH, a->uid, NULL, 0);
	run_due_hooks(p);
}

/* The closing drain is over: the next session may begin. */
static void end_closing(struct port *p, bool timed_out)
{
	size_t unsent = byteq_len(&p->txq) - p->tx_inflight;

	if (timed_out && unsent) {
		log_warn("discarded %zu bytes the handheld did not take in the closing wait "
			 "(%u cs) after the last close",
			 unsent, p->tty.closing_wait);
		p->stats.tx_discarded += unsent;
		byteq_truncate(&p->txq, p->tx_inflight);
	}
	if (timed_out && p->tx_inflight) {
		/* as usb-serial kills its write URBs: whatever the transfer in
		 * flight did not deliver is never sent again */
		p->tx_stale = p->tx_inflight;
		due(p, PORT_DUE_TX_ABORT);
	}
	p->closing = false;
	p->closing_deadline = 0;
	due(p, PORT_DUE_LAST_CLOSE);
	serve_opens(p);
}

/*
 * What a tty keeps in its tty_struct goes with it (stopped output,
 * TIOCEXCL, the window size); termios stays with the device, as
 * usb-serial keeps it.  At the last close, and at a departure: the
 * hung-up files' tty is gone (a new device gets a new tty), so a file
 * kept open cannot carry them to the next handheld.
 */
static void drop_tty_session(struct port *p)
{
	p->tty.exclusive = false;
	p->tty.output_stopped = false;
	memset(p->tty.winsize, 0, sizeof(p->tty.winsize));
}

/* The last close: unsent output may drain first (the closing wait). */
static void last_close(struct port *p)
{
	drop_tty_session(p);
	if (p->carrier && byteq_len(&p->txq) > 0) {
		p->closing = true; /* its deadline starts at this round's end */
		due(p, PORT_DUE_TX);
	} else {
		due(p, PORT_DUE_LAST_CLOSE);
	}
}

static void release_file(struct port *p, uint64_t fh)
{
	answer_all(p, &p->reads, fh, EIO);
	answer_all(p, &p->writes, fh, EIO);
	answer_all(p, &p->ioctls, fh, EIO);
	file_remove(p, fh);
	/* nobody is left to read them, and no later opener may */
	if (byteq_len(&p->rxq) && !rxq_has_reader(p))
		drop_rxq(p);
	if (!p->files)
		last_close(p);
}

void port_release(struct port *p, uint64_t fh)
{
	release_file(p, fh);
	run_due_hooks(p);
}

/* ---- read ---- */

/*
 * Whether a read of size bytes that began at started_ms can be answered
 * at now, with avail bytes for it, by the rules of VMIN and VTIME (tty.c
 * tty_read_rule()).  *deadline gets the time at which that may change
 * (0: not by time).
 */
static bool read_ready(const struct port *p, size_t avail, size_t size, uint64_t started_ms,
		       uint64_t now, uint64_t *deadline)
{
	struct tty_read_rule rule = tty_read_rule(&p->tty, size);
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

static void answer_read(struct port *p, void *req, size_t size, size_t avail)
{
	size_t n = byteq_pop(&p->rxq, p->readbuf, min_size(min_size(size, avail), p->cfg.read_max));

	p->h.answer_data(p->h.ctx, req, p->readbuf, n);
	if (n && p->listening)
		due(p, PORT_DUE_RX_ROOM);
}

static uint32_t uid_of(struct port *p, uint64_t fh)
{
	struct port_file *f = file_find(p, fh);

	return f ? f->uid : 0;
}

/*
 * f read, polled or asked FIONREAD: from now on bytes are taken for it.
 * Not at open: a desktop's tcflush() right after open must not discard
 * what the handheld said before anyone asked (docs/tty-differences.md).
 */
static void start_listening(struct port *p, struct port_file *f)
{
	if (!f || f->listening || f->hung_up)
		return;
	f->listening = true;
	if (p->listening++ == 0)
		due(p, PORT_DUE_RX_ROOM);
}

static bool is_hung_up(struct port *p, uint64_t fh)
{
	struct port_file *f = file_find(p, fh);

	return f && f->hung_up;
}

static void read_now(struct port *p, void *req, uint64_t fh, size_t size, bool nonblock,
		     uint64_t now)
{
	struct port_file *f = file_find(p, fh);
	size_t avail = rx_avail(p, f);
	uint64_t deadline;
	struct parked *e;

	start_listening(p, f);
	if (size == 0 || (f && f->hung_up)) {
		/* A hung-up file reads what its handheld sent, then end of file. */
		answer_read(p, req, size, avail);
		return;
	}
	if (!p->reads.head && read_ready(p, avail, size, now, now, &deadline)) {
		answer_read(p, req, size, avail);
		return;
	}
	if (nonblock) {
		/* n_tty: what is there, or EAGAIN */
		if (!p->reads.head && avail > 0)
			answer_read(p, req, size, avail);
		else
			p->h.answer_err(p->h.ctx, req, EAGAIN);
		return;
	}
	e = park(p, &p->reads, req, fh, f ? f->uid : 0, NULL, size);
	if (e)
		e->started_ms = now;
}

void port_read(struct port *p, void *req, uint64_t fh, size_t size, bool nonblock, uint64_t now)
{
	read_now(p, req, fh, size, nonblock, now);
	run_due_hooks(p);
}

/* Answer parked reads in order while the head one is ready. */
static void serve_reads(struct port *p, uint64_t now)
{
	struct parked *e;
	uint64_t deadline;

	while ((e = p->reads.head)) {
		size_t avail = rx_avail(p, file_find(p, e->fh));

		if (!read_ready(p, avail, e->size, e->started_ms, now, &deadline))
			break;
		unpark(p, &p->reads, e);
		answer_read(p, e->req, e->size, avail);
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

/* Queue the bytes, let the transport start, then answer the writer. */
static void write_now(struct port *p, void *req, const void *buf, size_t n)
{
	byteq_push(&p->txq, buf, n);
	due(p, PORT_DUE_TX);
	run_due_hooks(p); /* the transfer first: the writer waits less */
	p->h.answer_written(p->h.ctx, req, n);
}

void port_write(struct port *p, void *req, uint64_t fh, const void *buf, size_t size,
		bool nonblock)
{
	size_t need = write_chunk(p, size);

	if (is_hung_up(p, fh)) {
		p->h.answer_err(p->h.ctx, req, EIO);
	} else if (!p->carrier) {
		/* a line with no device on it: the bytes are gone */
		p->stats.tx_discarded += size;
		p->h.answer_written(p->h.ctx, req, size);
	} else if (!p->writes.head && byteq_space(&p->txq) >= need) {
		write_now(p, req, buf, need);
	} else if (nonblock) {
		size_t n = p->writes.head ? 0 : min_size(size, byteq_space(&p->txq));

		if (n == 0)
			p->h.answer_err(p->h.ctx, req, EAGAIN);
		else
			write_now(p, req, buf, n);
	} else {
		park(p, &p->writes, req, fh, uid_of(p, fh), buf, size);
	}
	run_due_hooks(p);
}

static void serve_writes(struct port *p)
{
	struct parked *e, *taken = NULL, **tail = &taken;

	while ((e = p->writes.head)) {
		size_t need = write_chunk(p, e->size);

		if (byteq_space(&p->txq) < need)
			break;
		byteq_push(&p->txq, e->data, need);
		unpark(p, &p->writes, e);
		e->size = need;
		*tail = e;
		tail = &e->next;
	}
	if (!taken)
		return;
	/* the transfer first, then the writers, whom no hook can reach now */
	due(p, PORT_DUE_TX);
	run_due_hooks(p);
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

	/*
	 * What a hung-up tty reports (drivers/tty/tty_io.c hung_up_tty_poll),
	 * but without POLLERR while its handheld's last bytes wait unread: a
	 * poll loop that closes on POLLERR (libuv) reads them first.
	 */
	if (f && f->hung_up)
		return POLLIN | POLLOUT | POLLHUP | POLLRDNORM | POLLWRNORM |
		       (rx_avail(p, f) ? 0 : POLLERR);
	if (rx_avail(p, f) > 0)
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
	start_listening(p, f);
	ev = current_events(p, f);
	if (f)
		f->polled_events = ev;
	run_due_hooks(p);
	return ev;
}

/* ---- ioctl ---- */

/* Bytes leave txq only once the handheld took them (port_tx_done). */
static bool output_drained(const struct port *p)
{
	return byteq_len(&p->txq) == 0;
}

static void flush_queues(struct port *p, const struct port_file *f, unsigned int which)
{
	if ((which & TTY_FLUSH_IN) && rx_avail(p, f)) {
		byteq_drop(&p->rxq, byteq_len(&p->rxq));
		if (p->listening)
			due(p, PORT_DUE_RX_ROOM);
	}
	if (which & TTY_FLUSH_OUT) {
		/* bytes already handed to the handheld cannot be called back */
		p->stats.tx_flushed += byteq_len(&p->txq) - p->tx_inflight;
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
	struct port_file *f = file_find(p, fh);
	struct tty_context ctx;
	bool was_stopped = p->tty.output_stopped;
	struct tty_reply r;
	struct parked *e;

	if (io->cmd == FIONREAD)
		start_listening(p, f);
	ctx = (struct tty_context){
		.rx_queued = rx_avail(p, f),
		.tx_queued = byteq_len(&p->txq),
		.carrier = p->carrier,
		.drained = output_drained(p),
		.carrier_changes = p->carrier_changes,
		.rx_bytes = p->stats.rx_bytes,
		.tx_bytes = p->stats.tx_bytes,
	};
	tty_ioctl(&p->tty, io, &ctx, &r);
	switch (r.action) {
	case TTY_FETCH:
		p->h.answer_ioctl_fetch(p->h.ctx, req, io->arg, r.fetch_in, r.fetch_out);
		return true;
	case TTY_WAIT_DRAIN:
	case TTY_WAIT_MODEM:
		if (parked)
			return false;
		e = park(p, &p->ioctls, req, fh, f ? f->uid : 0, io->in, io->in_len);
		if (e) {
			e->cmd = io->cmd;
			e->arg = io->arg;
			e->out_size = io->out_len;
			e->compat = io->compat;
			e->caller_uid = io->caller_uid;
		}
		return true;
	case TTY_ANSWER: break;
	}
	if (r.flush)
		flush_queues(p, f, r.flush);
	if (r.output_changed && was_stopped && !p->tty.output_stopped)
		due(p, PORT_DUE_TX);
	if (r.err)
		p->h.answer_err(p->h.ctx, req, r.err);
	else
		p->h.answer_ioctl(p->h.ctx, req, r.out_len ? r.out : NULL, r.out_len);
	return true;
}

static struct parked *first_drain_waiter(const struct parked_list *l)
{
	for (struct parked *e = l->head; e; e = e->next)
		if (e->cmd != TIOCMIWAIT)
			return e;
	return NULL;
}

/*
 * Retry ioctls that wait for the output to drain.  Each is off the list
 * while it runs; one that must wait again goes back to the tail, and
 * each entry is tried once per call.
 */
static void serve_drains(struct port *p)
{
	size_t tries = p->ioctls.count;
	struct parked *e;

	while (tries-- && output_drained(p) && (e = first_drain_waiter(&p->ioctls))) {
		struct tty_ioctl io = {
			.cmd = e->cmd,
			.arg = e->arg,
			.in = e->data,
			.in_len = e->size,
			.out_len = e->out_size,
			.compat = e->compat,
			.caller_uid = e->caller_uid,
		};

		unpark(p, &p->ioctls, e);
		if (run_ioctl(p, e->req, e->fh, &io, true))
			parked_free(e);
		else
			parked_put_back(&p->ioctls, e);
	}
}

void port_ioctl(struct port *p, void *req, uint64_t fh, const struct tty_ioctl *io)
{
	/* a hung-up tty answers EIO (drivers/tty/tty_io.c hung_up_tty_ioctl) */
	if (is_hung_up(p, fh)) {
		p->h.answer_err(p->h.ctx, req, EIO);
	} else {
		run_ioctl(p, req, fh, io, false);
		/* TCFLSH may have emptied txq: drains waiting on it are done */
		serve_drains(p);
	}
	run_due_hooks(p);
}

/* A TIOCMIWAIT whose mask asks for the carrier lines, or NULL. */
static struct parked *first_carrier_waiter(const struct parked_list *l)
{
	for (struct parked *e = l->head; e; e = e->next)
		if (e->cmd == TIOCMIWAIT && tty_modem_wait_wakes(e->arg, TTY_CARRIER_LINES))
			return e;
	return NULL;
}

/* An arrival: CD, DSR and CTS came on.  (A departure answers EIO.) */
static void wake_modem_waiters(struct port *p)
{
	struct parked *e;

	p->carrier_changes++;
	while ((e = first_carrier_waiter(&p->ioctls))) {
		unpark(p, &p->ioctls, e);
		p->h.answer_ioctl(p->h.ctx, e->req, NULL, 0);
		parked_free(e);
	}
}

/* ---- rounds, timers, shutdown ---- */

/* Earliest of two deadlines, 0 meaning none. */
static uint64_t earliest(uint64_t a, uint64_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/*
 * When the closing drain ends: after TIOCSSERIAL's closing_wait
 * (centiseconds), at once with ASYNC_CLOSING_WAIT_NONE, and only when the
 * output is out or the handheld leaves with ASYNC_CLOSING_WAIT_INF, as
 * tty_port_close_start() waits.
 */
static uint64_t closing_deadline(const struct port *p, uint64_t now)
{
	if (p->tty.closing_wait == ASYNC_CLOSING_WAIT_NONE)
		return now;
	if (p->tty.closing_wait == ASYNC_CLOSING_WAIT_INF)
		return UINT64_MAX;
	return now + p->tty.closing_wait * 10ull;
}

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
	if (p->closing && !p->closing_deadline)
		p->closing_deadline = closing_deadline(p, now);
	if (p->closing && now >= p->closing_deadline)
		end_closing(p, true);
	if (p->reads.head)
		read_ready(p, rx_avail(p, file_find(p, p->reads.head->fh)), p->reads.head->size,
			   p->reads.head->started_ms, now, &deadline);
	if (p->closing && p->closing_deadline != UINT64_MAX)
		deadline = earliest(deadline, p->closing_deadline);
	for (struct port_file *f = p->files; f; f = f->next) {
		unsigned int ev = current_events(p, f);

		if (ev != f->polled_events && f->poll_handle)
			p->h.notify_poll(p->h.ctx, f->poll_handle);
		f->polled_events = ev;
	}
	run_due_hooks(p);
	return deadline;
}

void port_shutdown(struct port *p)
{
	answer_all(p, &p->reads, PARKED_ANY_FH, EIO);
	answer_all(p, &p->writes, PARKED_ANY_FH, EIO);
	answer_all(p, &p->ioctls, PARKED_ANY_FH, EIO);
	answer_all(p, &p->opens, PARKED_ANY_FH, EIO);
	run_due_hooks(p);
}

/* ---- the transport's side ---- */

void port_carrier_up(struct port *p)
{
	/* what is left in rxq belongs to a handheld that has gone */
	if (byteq_len(&p->rxq)) {
		log_warn("dropped %zu unread bytes from the previous handheld",
			 byteq_len(&p->rxq));
		drop_rxq(p);
	}
	p->carrier = true;
	p->rxq_session = ++p->session;
	p->stats.rx_bytes = p->stats.tx_bytes = 0;
	wake_modem_waiters(p);
	serve_opens(p);
	run_due_hooks(p);
}

/*
 * The handheld left: hang up every open file, as usb-serial does on
 * disconnect (tty_port_tty_vhangup(), whatever CLOCAL says).  Bytes for
 * the handheld that it did not take are discarded.
 */
static void hang_up(struct port *p)
{
	unsigned int n = 0;
	struct parked *e;

	p->carrier = false;
	for (struct port_file *f = p->files; f; f = f->next) {
		if (!f->hung_up) {
			f->hung_up = true;
			n++;
		}
	}
	p->live_files = p->listening = 0;
	/* A parked read means nothing is there for it: end of file. */
	while ((e = p->reads.head)) {
		unpark(p, &p->reads, e);
		p->h.answer_data(p->h.ctx, e->req, NULL, 0);
		parked_free(e);
	}
	answer_all(p, &p->writes, PARKED_ANY_FH, EIO);
	/* TIOCMIWAIT too: usb-serial's answers EIO once the device is gone */
	p->carrier_changes++;
	answer_all(p, &p->ioctls, PARKED_ANY_FH, EIO);
	if (byteq_len(&p->txq)) {
		log_warn("discarded %zu bytes that were queued for the handheld",
			 byteq_len(&p->txq));
		p->stats.tx_discarded += byteq_len(&p->txq);
		byteq_drop(&p->txq, byteq_len(&p->txq));
	}
	p->tx_inflight = p->tx_stale = 0;
	drop_tty_session(p);
	/* bytes no open file of their session can read are nobody's */
	if (byteq_len(&p->rxq) && !rxq_has_reader(p))
		drop_rxq(p);
	p->stats.hangups++;
	if (n)
		log_info("hung up %u open file%s", n, n == 1 ? "" : "s");
	if (p->closing)
		end_closing(p, false);
	serve_opens(p);
}

void port_carrier_down(struct port *p)
{
	if (p->carrier)
		hang_up(p);
	run_due_hooks(p);
}

size_t port_rx_room(const struct port *p)
{
	return p->listening && p->carrier ? byteq_space(&p->rxq) : 0;
}

void port_rx(struct port *p, const void *buf, size_t len, uint64_t now)
{
	/* a transfer submitted for an earlier listener still delivers to a
	 * live file that has not listened yet: nothing is lost that way */
	size_t n = p->live_files && p->carrier ? byteq_push(&p->rxq, buf, len) : 0;

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
	if (p->carrier) { /* else txq was discarded at hangup */
		sent = min_size(sent, p->tx_inflight);
		if (p->tx_stale) {
			/* a closed session's: the rest is not sent again */
			p->stats.tx_discarded += p->tx_stale - min_size(sent, p->tx_stale);
			byteq_drop(&p->txq, p->tx_stale);
			p->tx_stale = 0;
		} else {
			byteq_drop(&p->txq, sent);
		}
		p->stats.tx_bytes += sent;
		p->tx_inflight = 0;
		serve_writes(p);
		serve_drains(p);
		if (p->closing && output_drained(p))
			end_closing(p, false);
	}
	run_due_hooks(p);
}
