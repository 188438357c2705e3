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
	ldisc_init(&p->ldisc);
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

/*
 * The received bytes that file f may read: its own session's only.  In
 * canonical mode rxq holds complete lines alone (the line being edited
 * is the ldisc's), so this is what n_tty's FIONREAD counts too.
 */
static size_t rx_avail(const struct port *p, const struct port_file *f)
{
	return f && f->session == p->rxq_session ? byteq_len(&p->rxq) : 0;
}

static bool canonical(const struct port *p)
{
	return p->tty.termios.c_lflag & ICANON;
}

/* Whether a read by f has something to answer: bytes, or a line (an end of file too). */
static bool readable(const struct port *p, const struct port_file *f)
{
	if (!f || f->session != p->rxq_session)
		return false;
	return canonical(p) ? p->lines.count > 0 : byteq_len(&p->rxq) > 0;
}

static void lines_clear(struct port *p)
{
	p->lines.head = p->lines.count = 0;
}

static void lines_add(struct port *p, size_t len)
{
	p->lines.len[(p->lines.head + p->lines.count++) % PORT_LINES_MAX] = (uint32_t)len;
}

/*
 * A complete line into rxq (canonical mode): what fits of it, the rest
 * counted.  With the ring full (transfers sized before ICANON came on
 * bring more line ends than it holds) the line joins the last one: a
 * boundary is lost, never a byte.
 */
static void add_line(struct port *p, const uint8_t *bytes, size_t len)
{
	size_t n = byteq_push(&p->rxq, bytes, len);

	p->stats.rx_discarded += len - n;
	if (len && !n)
		return;
	if (p->lines.count < PORT_LINES_MAX)
		lines_add(p, n);
	else
		p->lines.len[(p->lines.head + p->lines.count - 1) % PORT_LINES_MAX] += (uint32_t)n;
}

static void lines_pop(struct port *p)
{
	p->lines.head = (p->lines.head + 1) % PORT_LINES_MAX;
	p->lines.count--;
}

/* Received bytes are held: read, in lines, or in the line being edited. */
static bool rx_held(const struct port *p)
{
	return byteq_len(&p->rxq) || p->lines.count || p->ldisc.line_len;
}

static void drop_rxq(struct port *p)
{
	p->stats.rx_discarded += byteq_len(&p->rxq) + p->ldisc.line_len;
	byteq_drop(&p->rxq, byteq_len(&p->rxq));
	lines_clear(p);
	ldisc_flush_line(&p->ldisc);
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

/* The bound that one more request of uid waiting in l would pass, or NULL. */
static const char *park_bound(const struct port *p, const struct parked_list *l, uint32_t uid,
			      size_t size, size_t *value)
{
	size_t bytes, n = parked_by(p, uid, &bytes);
	size_t write_size = l == &p->writes ? size : 0;

	*value = p->cfg.parked_max;
	if (port_parked_count(p) >= p->cfg.parked_max || n >= share(uid, p->cfg.parked_max))
		return "waiting requests (a quarter for one user)";
	*value = p->cfg.parked_write_bytes;
	if (p->parked_write_bytes + write_size > p->cfg.parked_write_bytes ||
	    bytes + write_size > share(uid, p->cfg.parked_write_bytes))
		return "bytes of waiting writes (a quarter for one user)";
	return NULL;
}

static struct parked *park(struct port *p, struct parked_list *l, void *req, uint64_t fh,
			   uint32_t uid, const void *data, size_t size)
{
	size_t value;
	const char *bound = park_bound(p, l, uid, size, &value);
	struct parked *e;

	if (bound) {
		refuse(p, req, ENOBUFS, bound, value);
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

/* A write that queued part of its bytes answers with that count instead, as n_tty does. */
static void answer_err_free(struct port *p, struct parked *e, int err)
{
	if (e->done)
		p->h.answer_written(p->h.ctx, e->req, e->done);
	else
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

static void answer_read(struct port *p, void *req, const struct port_file *f, size_t size);
static struct port_file *file_find(struct port *p, uint64_t fh);

static void answer_interrupted(struct port *p, struct parked_list *l)
{
	struct parked *first = l->head, *e;

	while ((e = parked_first_interrupted(l))) {
		struct port_file *f = file_find(p, e->fh);

		unpark(p, l, e);
		/*
		 * n_tty copies bytes to the reader it serves as they come, and a
		 * signal then ends the read with them: a non-canonical read short
		 * of VMIN returns what is there.  The other readers wait for
		 * that one and get EINTR.
		 */
		if (l == &p->reads && e == first && !canonical(p) && rx_avail(p, f)) {
			answer_read(p, e->req, f, e->size);
			parked_free(e);
		} else {
			answer_err_free(p, e, EINTR);
		}
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
	/* STOP/START characters not sent are the closed session's too */
	p->xchar_count = p->xchar_inflight;
	if (timed_out && p->xchar_inflight)
		p->xchar_stale = true; /* as tx_stale: never sent again */
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
	p->tty.output_stopped = p->tty.flow_stopped = false;
	memset(p->tty.winsize, 0, sizeof(p->tty.winsize));
	ldisc_init(&p->ldisc); /* n_tty_open() starts a new tty afresh */
}

/* The last close: unsent output may drain first (the closing wait). */
static void last_close(struct port *p)
{
	drop_tty_session(p);
	if (p->carrier && port_tx_queued(p) > 0) {
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
	if (rx_held(p) && !rxq_has_reader(p))
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
 * Whether a read by f of size bytes that began at started_ms can be
 * answered at now: in canonical mode once a line is complete, otherwise
 * by the rules of VMIN and VTIME (tty.c tty_read_rule()).  *deadline gets
 * the time at which that may change (0: not by time).
 */
static bool read_ready(const struct port *p, const struct port_file *f, size_t size,
		       uint64_t started_ms, uint64_t now, uint64_t *deadline)
{
	struct tty_read_rule rule = tty_read_rule(&p->tty, size);
	size_t avail = rx_avail(p, f);
	uint64_t start = started_ms;

	*deadline = 0;
	if (canonical(p))
		return readable(p, f);
	if (rule.never_wait || avail >= (rule.min ? rule.min : 1))
		return true;
	if (!rule.timeout_ms || (rule.interbyte && avail == 0))
		return false; /* the inter-byte timer starts with the first byte */
	if (rule.interbyte && p->last_rx_ms > start)
		start = p->last_rx_ms;
	*deadline = start + rule.timeout_ms;
	return now >= *deadline;
}

/*
 * What f may read, up to size bytes: in canonical mode one line at most
 * (n_tty's canon_copy_from_read_buf(): the rest of a line that did not
 * fit comes with the next read; an end of file reads as 0).
 */
static void answer_read(struct port *p, void *req, const struct port_file *f, size_t size)
{
	size_t n = 0, max = min_size(size, p->cfg.read_max);
	bool line_gone = false;

	if (max && !canonical(p)) {
		n = byteq_pop(&p->rxq, p->readbuf, min_size(max, rx_avail(p, f)));
	} else if (max && readable(p, f)) {
		uint32_t *len = &p->lines.len[p->lines.head];

		n = byteq_pop(&p->rxq, p->readbuf, min_size(max, *len));
		*len -= (uint32_t)n;
		if (*len == 0) {
			lines_pop(p);
			line_gone = true;
		}
	}
	p->h.answer_data(p->h.ctx, req, p->readbuf, n);
	if ((n || line_gone) && p->listening)
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
	uint64_t deadline;
	struct parked *e;

	start_listening(p, f);
	if (size == 0 || (f && f->hung_up)) {
		/* A hung-up file reads what its handheld sent, then end of file. */
		answer_read(p, req, f, size);
		return;
	}
	if (!p->reads.head && read_ready(p, f, size, now, now, &deadline)) {
		answer_read(p, req, f, size);
		return;
	}
	if (nonblock) {
		/* n_tty: what is there, or EAGAIN */
		if (!p->reads.head && readable(p, f))
			answer_read(p, req, f, size);
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
		struct port_file *f = file_find(p, e->fh);

		if (!read_ready(p, f, e->size, e->started_ms, now, &deadline))
			break;
		unpark(p, &p->reads, e);
		answer_read(p, e->req, f, e->size);
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

/* The transfer first, then the writer: it waits less. */
static void answer_queued(struct port *p, void *req, size_t n)
{
	due(p, PORT_DUE_TX);
	run_due_hooks(p);
	p->h.answer_written(p->h.ctx, req, n);
}

/* Queue the bytes, let the transport start, then answer the writer. */
static void write_now(struct port *p, void *req, const void *buf, size_t n)
{
	byteq_push(&p->txq, buf, n);
	answer_queued(p, req, n);
}

/*
 * Output processing (OPOST): as many of the len bytes as their output
 * fits in txq; returns how many were taken.  A byte becomes up to 8 (a
 * tab as spaces), so a write may go in parts, as in n_tty's
 * process_output_block().
 */
static size_t queue_cooked(struct port *p, const uint8_t *in, size_t len)
{
	uint8_t out[2048];
	size_t done = 0;

	while (done < len && byteq_space(&p->txq) > 0) {
		size_t taken, n = ldisc_output(&p->ldisc, &p->tty.termios, in + done, len - done, out,
					       min_size(sizeof(out), byteq_space(&p->txq)), &taken);

		if (taken == 0)
			break;
		byteq_push(&p->txq, out, n);
		done += taken;
	}
	return done;
}

/*
 * A write through OPOST.  A blocking one waits until all of it is queued
 * (with the part queued so far as its answer if a signal or a hangup ends
 * it, as n_tty's write returns); a non-blocking one takes what fits.
 */
static void write_cooked(struct port *p, void *req, uint64_t fh, const uint8_t *buf, size_t size,
			 bool nonblock)
{
	size_t done = p->writes.head ? 0 : queue_cooked(p, buf, size), value;
	uint32_t uid = uid_of(p, fh);
	struct parked *e;

	if (done == size || (nonblock && done)) {
		answer_queued(p, req, done);
	} else if (nonblock) {
		p->h.answer_err(p->h.ctx, req, EAGAIN);
	} else if (done && park_bound(p, &p->writes, uid, size, &value)) {
		answer_queued(p, req, done); /* short rather than refused: part went */
	} else {
		if (done)
			due(p, PORT_DUE_TX);
		e = park(p, &p->writes, req, fh, uid, buf, size);
		if (e)
			e->done = done;
	}
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
	} else if (!ldisc_output_raw(&p->tty.termios)) {
		write_cooked(p, req, fh, buf, size, nonblock);
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

/* Queue parked writes in order, with the settings of now, as room comes. */
static void serve_writes(struct port *p)
{
	struct parked *e, *taken = NULL, **tail = &taken;
	bool queued = false;

	while ((e = p->writes.head)) {
		size_t before = e->done;

		if (!ldisc_output_raw(&p->tty.termios)) {
			e->done += queue_cooked(p, e->data + e->done, e->size - e->done);
		} else {
			size_t need = write_chunk(p, e->size - e->done);

			if (byteq_space(&p->txq) >= need)
				e->done += byteq_push(&p->txq, e->data + e->done, need);
		}
		queued |= e->done != before;
		if (e->done < e->size)
			break;
		unpark(p, &p->writes, e);
		*tail = e;
		tail = &e->next;
	}
	if (!queued)
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
		       (readable(p, f) ? 0 : POLLERR);
	if (readable(p, f))
		ev |= POLLIN | POLLRDNORM;
	/* room for a byte's output: one, or eight through OPOST (a tab) */
	if (!p->carrier ||
	    (byteq_space(&p->txq) >= (ldisc_output_raw(&p->tty.termios) ? 1 : LDISC_OUT_MAX) &&
	     !p->writes.head))
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
	return port_tx_queued(p) == 0;
}

/* What readers have not read, and the line being edited, go. */
static void flush_input(struct port *p)
{
	byteq_drop(&p->rxq, byteq_len(&p->rxq));
	lines_clear(p);
	ldisc_flush_line(&p->ldisc);
	if (p->listening)
		due(p, PORT_DUE_RX_ROOM);
}

/* Bytes already handed to the handheld cannot be called back. */
static void flush_output(struct port *p)
{
	p->stats.tx_flushed += byteq_len(&p->txq) - p->tx_inflight;
	byteq_truncate(&p->txq, p->tx_inflight);
}

static void flush_queues(struct port *p, const struct port_file *f, unsigned int which)
{
	/* a file of another session has no input here to flush */
	if ((which & TTY_FLUSH_IN) && f && f->session == p->rxq_session)
		flush_input(p);
	if (which & TTY_FLUSH_OUT) {
		flush_output(p);
		serve_writes(p);
	}
}

static void receive(struct port *p, const uint8_t *buf, size_t len, uint64_t now);

/*
 * New settings.  Switching canonical mode on makes what readers have not
 * read one line; switching it off makes the line being edited readable
 * (n_tty_set_termios()).  IXON off lets stopped output go.
 */
static void termios_changed(struct port *p, const struct termios2 *old)
{
	const struct termios2 *t = &p->tty.termios;

	if ((old->c_lflag ^ t->c_lflag) & ICANON) {
		lines_clear(p);
		if (canonical(p) && byteq_len(&p->rxq)) {
			lines_add(p, byteq_len(&p->rxq));
		} else if (!canonical(p)) {
			size_t n = byteq_push(&p->rxq, p->ldisc.line, p->ldisc.line_len);

			p->stats.rx_discarded += p->ldisc.line_len - n;
		}
		ldisc_flush_line(&p->ldisc);
	}
	if ((old->c_iflag & IXON) && !(t->c_iflag & IXON) && p->tty.flow_stopped &&
	    !p->tty.output_stopped) {
		p->tty.flow_stopped = false;
		due(p, PORT_DUE_TX);
	}
	if (p->listening)
		due(p, PORT_DUE_RX_ROOM); /* port_rx_room() depends on the mode */
}

/*
 * TIOCSTI: the byte is received as if from the handheld, into the input
 * of f's session (a file opened before the handheld came may claim an
 * empty rxq for it).
 */
static void inject(struct port *p, const struct port_file *f, uint8_t c)
{
	if (!f)
		return;
	if (f->session != p->rxq_session) {
		if (rx_held(p)) {
			p->stats.rx_discarded++;
			return;
		}
		p->rxq_session = f->session;
	}
	receive(p, &c, 1, p->last_rx_ms);
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
	bool was_stopped = p->tty.output_stopped || p->tty.flow_stopped;
	struct termios2 old = p->tty.termios;
	struct tty_reply r;
	struct parked *e;

	if (io->cmd == FIONREAD)
		start_listening(p, f);
	ctx = (struct tty_context){
		.rx_queued = rx_avail(p, f),
		.tx_queued = port_tx_queued(p),
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
	if (memcmp(&old, &p->tty.termios, sizeof(old)) != 0)
		termios_changed(p, &old);
	if (r.flush)
		flush_queues(p, f, r.flush);
	if (r.output_changed && was_stopped && !p->tty.output_stopped && !p->tty.flow_stopped)
		due(p, PORT_DUE_TX);
	if (r.send_xchar && p->carrier) {
		/* ahead of the output, even stopped output (tty_send_xchar()) */
		if (p->xchar_count < PORT_XCHARS_MAX)
			p->xchars[p->xchar_count++] = r.xchar;
		else if (p->xchar_inflight < PORT_XCHARS_MAX)
			p->xchars[PORT_XCHARS_MAX - 1] = r.xchar;
		due(p, PORT_DUE_TX);
	}
	if (r.inject)
		inject(p, f, r.inject_byte);
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

	/* a signal character emptied txq in the round: writers and drains may go */
	if (p->output_flushed) {
		p->output_flushed = false;
		serve_writes(p);
		serve_drains(p);
	}
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
		read_ready(p, file_find(p, p->reads.head->fh), p->reads.head->size,
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
	/* what is left in rxq belongs to a handheld that has gone (or to
	 * TIOCSTI on a file that waited for this one) */
	if (rx_held(p) && p->rxq_session != p->session + 1) {
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
	/* a line being edited stays for the hung-up files, as a last line */
	if (canonical(p) && p->ldisc.line_len) {
		add_line(p, p->ldisc.line, p->ldisc.line_len);
		ldisc_flush_line(&p->ldisc);
	}
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
	p->xchar_count = p->xchar_inflight = 0;
	p->xchar_stale = false;
	drop_tty_session(p);
	/* bytes no open file of their session can read are nobody's */
	if (rx_held(p) && !rxq_has_reader(p))
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

/*
 * Room for received bytes such that none is lost: rxq's, less the line
 * being edited (it goes into rxq whole); in canonical mode no more bytes
 * than lines rxq can still count (each byte may end one); half with
 * PARMRK, which doubles 0xff.
 */
size_t port_rx_room(const struct port *p)
{
	size_t room;

	if (!p->listening || !p->carrier)
		return 0;
	room = byteq_space(&p->rxq);
	if (ldisc_input_raw(&p->tty.termios))
		return room;
	room = room > p->ldisc.line_len ? room - p->ldisc.line_len : 0;
	if (p->tty.termios.c_iflag & PARMRK)
		room /= 2;
	if (canonical(p))
		room = min_size(room, PORT_LINES_MAX - p->lines.count);
	return room;
}

/* ---- the line discipline's effects (ldisc_ops), during receive() ---- */

static void ld_deliver(void *ctx, const uint8_t *bytes, size_t len)
{
	struct port *p = ctx;
	size_t n;

	if (canonical(p)) {
		add_line(p, bytes, len);
		p->last_rx_ms = p->rx_now;
		return;
	}
	n = byteq_push(&p->rxq, bytes, len);
	p->stats.rx_discarded += len - n;
	if (n)
		p->last_rx_ms = p->rx_now;
}

static void ld_echo(void *ctx, const uint8_t *bytes, size_t len)
{
	struct port *p = ctx;
	size_t n = p->carrier ? byteq_push(&p->txq, bytes, len) : 0;

	/* n_tty too loses echoes that find no room */
	p->stats.tx_discarded += len - n;
	if (n)
		due(p, PORT_DUE_TX);
}

/* IXON: STOP and START from the handheld (n_tty's stop_tty(), start_tty()) */
static void ld_flow(void *ctx, bool stop)
{
	struct port *p = ctx;

	if (stop) {
		p->tty.flow_stopped = true;
	} else if (p->tty.flow_stopped && !p->tty.output_stopped) {
		p->tty.flow_stopped = false;
		due(p, PORT_DUE_TX);
	}
}

/* ISIG: nobody's controlling terminal gets no signal; only the flush */
static void ld_signal(void *ctx, uint8_t c, bool flush)
{
	struct port *p = ctx;

	(void)c;
	if (flush) {
		flush_input(p);
		flush_output(p);
		p->output_flushed = true; /* served after the round, not in the transport's call */
	}
}

/* The handheld's bytes (or TIOCSTI's) into the input, through n_tty's processing. */
static void receive(struct port *p, const uint8_t *buf, size_t len, uint64_t now)
{
	const struct ldisc_ops ops = {
		.ctx = p,
		.deliver = ld_deliver,
		.echo = ld_echo,
		.flow = ld_flow,
		.signal = ld_signal,
	};
	size_t n;

	if (!ldisc_input_raw(&p->tty.termios)) {
		uint64_t dropped = p->ldisc.dropped;

		p->rx_now = now;
		ldisc_receive(&p->ldisc, &p->tty.termios, buf, len, &ops);
		p->stats.rx_discarded += p->ldisc.dropped - dropped;
		return;
	}
	n = byteq_push(&p->rxq, buf, len);
	if (n < len) { /* never by port_rx_room()'s rule */
		p->stats.rx_discarded += len - n;
		log_debug("discarded %zu received bytes: no room", len - n);
	}
	if (n)
		p->last_rx_ms = now;
}

void port_rx(struct port *p, const void *buf, size_t len, uint64_t now)
{
	p->stats.rx_bytes += len;
	/* a transfer submitted for an earlier listener still delivers to a
	 * live file that has not listened yet: nothing is lost that way */
	if (!p->live_files || !p->carrier) {
		p->stats.rx_discarded += len;
		log_debug("discarded %zu received bytes: no file is open", len);
		return;
	}
	/* Waiting reads are answered after the round (port_after_events()),
	 * so that every packet that came in one round goes in one answer;
	 * echoes and a flushed output's writers too. */
	receive(p, buf, len, now);
}

size_t port_tx_take(struct port *p, void *buf, size_t max)
{
	uint8_t *b = buf;
	size_t n;

	if (!p->carrier || max == 0)
		return 0;
	/* one slot stays free for a TCIOFF/TCION that comes meanwhile */
	n = min_size(min_size(p->xchar_count, PORT_XCHARS_MAX - 1), max);
	memcpy(b, p->xchars, n);
	p->xchar_inflight = (unsigned int)n;
	p->tx_inflight = 0;
	if (!p->tty.output_stopped && !p->tty.flow_stopped)
		p->tx_inflight = byteq_peek(&p->txq, 0, b + n, max - n);
	return n + p->tx_inflight;
}

void port_tx_done(struct port *p, size_t sent)
{
	if (p->carrier && p->xchar_inflight) {
		size_t done = p->xchar_stale ? p->xchar_inflight : min_size(sent, p->xchar_inflight);

		p->xchar_count -= (unsigned int)done;
		memmove(p->xchars, p->xchars + done, p->xchar_count);
		sent -= min_size(sent, done);
		p->xchar_inflight = 0;
		p->xchar_stale = false;
	}
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
