// SPDX-License-Identifier: MIT
/*
 * The port's face to the files (as drivers/tty/tty_io.c and n_tty's
 * read, write and poll): when a read is answered and with what, how writes
 * are queued, what poll reports.
 */
#include <errno.h>
#include <poll.h>

#include "log.h"
#include "port_impl.h"

/*
 * The received bytes that file f may read: its own session's only.  In
 * canonical mode rxq holds complete lines alone (the line being edited
 * is the ldisc's), so this is what n_tty's FIONREAD counts too.
 */
size_t port_rx_avail(const struct port *p, const struct port_file *f)
{
	return f && f->session == p->rxq_session ? byteq_len(&p->rxq) : 0;
}

/* Whether a read by f has something to answer: bytes, or a line (an end of file too). */
static bool readable(const struct port *p, const struct port_file *f)
{
	if (!f || f->session != p->rxq_session)
		return false;
	return canonical(p) ? p->lines.count > 0 : byteq_len(&p->rxq) > 0;
}

/*
 * Whether a read by f of size bytes that began at started_ms can be
 * answered at now: in canonical mode once a line is complete, otherwise
 * by the rules of VMIN and VTIME (tty.c tty_read_rule()).  *deadline gets
 * the time at which that may change (0: not by time).
 */
bool port_read_ready(const struct port *p, const struct port_file *f, size_t size,
		     uint64_t started_ms, uint64_t now, uint64_t *deadline)
{
	struct tty_read_rule rule = tty_read_rule(&p->tty, size);
	size_t avail = port_rx_avail(p, f);
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
 * Under EXTPROC with ICANON n_tty queues bytes unedited, but a read whose
 * last piece is a lone VEOF, the last byte there, does not return that
 * byte (the end of file the pty's server edited; c_cc[VEOF] compared as it
 * is, disabled or not, as n_tty).  tty_read() calls n_tty's read in pieces
 * of 64 bytes (iterate_tty_read()'s kernel_buf), each one
 * copy_from_read_buf(): the last piece is lone when n bytes, all there
 * were, are 1 more than a multiple of 64.  (A piece also ends at the end
 * of n_tty's 4096-byte ring; not modelled: docs/tty-differences.md.)
 */
#define NTTY_READ_PIECE 64
static bool lone_eof_ends(const struct port *p, size_t n, size_t avail)
{
	const struct termios2 *t = &p->tty.termios;

	return (t->c_lflag & (ICANON | EXTPROC)) == (ICANON | EXTPROC) && n == avail &&
	       n % NTTY_READ_PIECE == 1 && p->readbuf[n - 1] == t->c_cc[VEOF];
}

/*
 * What f may read, up to size bytes: in canonical mode one line at most
 * (n_tty's canon_copy_from_read_buf(): the rest of a line that did not
 * fit comes with the next read; an end of file reads as 0).
 */
void port_answer_read(struct port *p, void *req, const struct port_file *f, size_t size)
{
	size_t n = 0, max = min_size(size, p->cfg.read_max);
	bool line_gone = false;

	if (max && !canonical(p)) {
		size_t avail = port_rx_avail(p, f);

		n = byteq_pop(&p->rxq, p->readbuf, min_size(max, avail));
		/* n_tty's copy_from_read_buf(): under EXTPROC, a lone VEOF is not read */
		if (n && lone_eof_ends(p, n, avail)) {
			n--;
			line_gone = true;
		}
	} else if (max && readable(p, f)) {
		uint32_t *len = &p->lines.len[p->lines.head];

		n = byteq_pop(&p->rxq, p->readbuf, min_size(max, *len));
		*len -= (uint32_t)n;
		if (*len == 0) {
			port_lines_pop(p);
			line_gone = true;
		}
	}
	reply_data(p, req, p->readbuf, n);
	if ((n || line_gone) && p->listening)
		due(p, PORT_DUE_RX_ROOM);
}

/*
 * f read, polled or asked FIONREAD: from now on bytes are taken for it.
 * Not at open: a desktop's tcflush() right after open must not discard
 * what the handheld said before anyone asked (docs/tty-differences.md).
 */
void port_start_listening(struct port *p, struct port_file *f)
{
	if (!f || f->listening || f->hung_up)
		return;
	f->listening = true;
	if (p->listening++ == 0)
		due(p, PORT_DUE_RX_ROOM);
}

static void read_now(struct port *p, void *req, uint64_t fh, size_t size, bool nonblock,
		     uint64_t now)
{
	struct port_file *f = port_file_find(p, fh);
	uint64_t deadline;
	struct parked *e;

	port_start_listening(p, f);
	if (size == 0 || (f && f->hung_up)) {
		/* A hung-up file reads what its handheld sent, then end of file. */
		port_answer_read(p, req, f, size);
		return;
	}
	if (!p->reads.head && port_read_ready(p, f, size, now, now, &deadline)) {
		port_answer_read(p, req, f, size);
		return;
	}
	if (nonblock) {
		/* n_tty: what is there, or EAGAIN */
		if (!p->reads.head && readable(p, f))
			port_answer_read(p, req, f, size);
		else
			reply_err(p, req, EAGAIN);
		return;
	}
	e = port_park(p, &p->reads, req, fh, port_cred_of(p, fh, req), NULL, size);
	if (e)
		e->started_ms = now;
}

void port_read(struct port *p, void *req, uint64_t fh, size_t size, bool nonblock, uint64_t now)
{
	struct port_file *f = port_file_find(p, fh);

	/* the kernel asks only when its buffer of the file is empty */
	if (f)
		f->input_held = false;
	p->stats.read_requests++;
	read_now(p, req, fh, size, nonblock, now);
	port_run_due_hooks(p);
}

/* Answer parked reads in order while the head one is ready. */
void port_serve_reads(struct port *p, uint64_t now)
{
	struct parked *e;
	uint64_t deadline;

	while ((e = p->reads.head)) {
		struct port_file *f = port_file_find(p, e->fh);

		if (!port_read_ready(p, f, e->size, e->started_ms, now, &deadline))
			break;
		port_unpark(p, &p->reads, e);
		port_answer_read(p, e->req, f, e->size);
		parked_free(e);
	}
}

/* The transfer first, then the writer: it waits less. */
static void answer_queued(struct port *p, void *req, size_t n)
{
	due(p, PORT_DUE_TX);
	port_run_due_hooks(p);
	reply_written(p, req, n);
}

/*
 * As many of the len bytes as fit in txq, as they are or through OPOST's
 * processing (a byte becomes up to 8, a tab as spaces: n_tty's
 * process_output_block()); returns how many were taken.
 */
static size_t queue_output(struct port *p, const uint8_t *in, size_t len)
{
	uint8_t out[2048];
	size_t done = 0;

	if (ldisc_output_raw(&p->tty.termios))
		return byteq_push(&p->txq, in, len);
	while (done < len && byteq_space(&p->txq) > 0) {
		size_t taken,
			n = ldisc_output(&p->ldisc, &p->tty.termios, in + done, len - done, out,
					 min_size(sizeof(out), byteq_space(&p->txq)), &taken);

		if (taken == 0)
			break;
		byteq_push(&p->txq, out, n);
		done += taken;
	}
	return done;
}

/*
 * A write goes into txq in parts as room comes, as n_tty_write() does, so
 * that echoes taking the room first cannot starve it.  A blocking one is
 * answered once all of it is queued (with the part queued so far if a
 * signal or a hangup ends it, as n_tty's write returns); a non-blocking
 * one takes what fits, or gets EAGAIN.  Writes go out in their order.
 */
static void write_queued(struct port *p, void *req, uint64_t fh, const uint8_t *buf, size_t size,
			 bool nonblock, bool buffered)
{
	size_t done = p->writes.head ? 0 : queue_output(p, buf, size), value;
	struct port_cred who = port_cred_of(p, fh, req);
	struct parked *e;

	if (done == size || (nonblock && done)) {
		answer_queued(p, req, done);
	} else if (nonblock) {
		reply_err(p, req, EAGAIN);
	} else if (done && port_park_bound(p, &p->writes, &who, size, &value)) {
		answer_queued(p, req, done); /* short rather than refused: part went */
	} else {
		if (done)
			due(p, PORT_DUE_TX);
		e = port_park(p, &p->writes, req, fh, who, buf, size);
		if (e) {
			e->done = done;
			e->buffered = buffered;
		}
	}
}

static void write_request(struct port *p, void *req, uint64_t fh, const void *buf, size_t size,
			  bool nonblock, bool buffered)
{
	p->stats.write_requests++;
	if (port_is_hung_up(p, fh)) {
		reply_err(p, req, EIO);
	} else if (!p->carrier) {
		/* a line with no device on it: the bytes are gone */
		p->stats.tx_discarded += size;
		reply_written(p, req, size);
	} else {
		port_process_echoes(p); /* n_tty_write(): the pending echoes first */
		write_queued(p, req, fh, buf, size, nonblock, buffered);
	}
	port_run_due_hooks(p);
}

void port_write(struct port *p, void *req, uint64_t fh, const void *buf, size_t size, bool nonblock)
{
	write_request(p, req, fh, buf, size, nonblock, false);
}

void port_write_buffered(struct port *p, void *req, uint64_t fh, const void *buf, size_t size)
{
	write_request(p, req, fh, buf, size, false, true);
}

/*
 * Queue parked writes in order, with the settings of now, as room comes;
 * the drains an output flush dropped are answered first, never queued.
 */
void port_serve_writes(struct port *p)
{
	struct parked *e, *taken = NULL, **tail = &taken;
	bool queued = false;

	port_answer_flushed_drains(p);
	while ((e = p->writes.head)) {
		size_t n = queue_output(p, e->data + e->done, e->size - e->done);

		e->done += n;
		queued |= n > 0;
		if (e->done < e->size)
			break;
		port_unpark(p, &p->writes, e);
		*tail = e;
		tail = &e->next;
	}
	if (!queued)
		return;
	/* the transfer first, then the writers, whom no hook can reach now */
	due(p, PORT_DUE_TX);
	port_run_due_hooks(p);
	while ((e = taken)) {
		taken = e->next;
		reply_written(p, e->req, e->size);
		parked_free(e);
	}
}

/*
 * POLLIN as n_tty's input_available_p(tty, 1): a line, or with VTIME 0
 * VMIN bytes (a read would wait for them).
 */
static bool poll_readable(const struct port *p, const struct port_file *f)
{
	const uint8_t *cc = p->tty.termios.c_cc;

	if (canonical(p) || !readable(p, f))
		return readable(p, f);
	return port_rx_avail(p, f) >= (!cc[VTIME] && cc[VMIN] ? cc[VMIN] : 1u);
}

unsigned int port_current_events(const struct port *p, const struct port_file *f)
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
	if (poll_readable(p, f))
		ev |= POLLIN | POLLRDNORM;
	/* n_tty_poll(): fewer than WAKEUP_CHARS queued, and room */
	if (!p->carrier ||
	    (port_tx_queued(p) < PORT_WAKEUP_CHARS && byteq_space(&p->txq) > 0 && !p->writes.head))
		ev |= POLLOUT | POLLWRNORM;
	return ev;
}

unsigned int port_poll(struct port *p, uint64_t fh, void *poll_handle, unsigned int wanted)
{
	struct port_file *f = port_file_find(p, fh);
	unsigned int ev;

	if (poll_handle) {
		if (f) {
			if (f->poll_handle)
				p->h.drop_poll_handle(p->h.ctx, f->poll_handle);
			f->poll_handle = poll_handle;
			f->poll_wanted |= (wanted ? wanted : ~0u) | POLLERR | POLLHUP;
		} else {
			p->h.drop_poll_handle(p->h.ctx, poll_handle);
		}
	}
	port_start_listening(p, f);
	ev = port_current_events(p, f);
	/*
	 * An event some answer since the last round said was absent is news
	 * at the round's end, although a later answer (another poller of the
	 * same open file) had it: only the later one's poller saw it.  For the
	 * same reason input, a transfer or settings since the round's end stay
	 * news (news_again()): an epoll ET poller told of them before sleeps.
	 */
	if (f) {
		f->polled_events &= ev;
		f->pushed = PORT_PUSHED_NONE; /* the kernel asked: it holds nothing */
	}
	port_run_due_hooks(p);
	return ev;
}

void port_poll_key(struct port *p, uint64_t fh, uint64_t key)
{
	struct port_file *f = port_file_find(p, fh);

	if (f) {
		f->push_key = key;
		f->push_keyed = true;
	}
}
