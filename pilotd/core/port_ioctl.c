// SPDX-License-Identifier: MIT
/*
 * The tty ioctls' effects on the port (as drivers/tty/tty_ioctl.c): tty.c
 * decides the answer, this file flushes queues, applies new settings,
 * queues STOP/START characters, injects TIOCSTI's byte and retries the
 * ioctls that wait for the output to drain.
 */
#include <asm/ioctls.h>
#include <errno.h>
#include <string.h>

#include "log.h"
#include "port_impl.h"

/* What readers have not read, and the line being edited, go. */
void port_flush_input(struct port *p)
{
	byteq_drop(&p->rxq, byteq_len(&p->rxq));
	port_lines_clear(p);
	ldisc_flush_line(&p->ldisc);
	if (p->listening)
		due(p, PORT_DUE_RX_ROOM);
}

/*
 * Bytes already handed to the handheld cannot be called back.  The drains
 * of the kernel's write buffers waiting for room hold bytes whose write()
 * returned: the output's flush (tcflush(), a signal character's) drops
 * them as it drops txq, as tty_driver_flush_buffer() drops the driver's
 * (port.h port_write_buffered()).  They are answered whole by
 * port_answer_flushed_drains(), not here: a signal character's flush runs
 * inside the transport's call.  A blocking write() parked here is a writer
 * still in n_tty_write(), whose rest goes on after the flush.
 */
void port_flush_output(struct port *p)
{
	p->stats.tx_flushed += byteq_len(&p->txq) - p->tx_inflight;
	byteq_truncate(&p->txq, p->tx_inflight);
	p->tx_released = min_size(p->tx_released, p->tx_inflight);
	for (struct parked *e = p->writes.head; e; e = e->next) {
		if (e->buffered && !e->flushed) {
			p->stats.tx_flushed += e->size - e->done;
			e->flushed = true;
		}
	}
}

void port_answer_flushed_drains(struct port *p)
{
	struct parked *e = p->writes.head, *next;

	for (; e; e = next) {
		next = e->next;
		if (e->flushed)
			port_drop_buffered(p, port_unpark(p, &p->writes, e));
	}
}

static void flush_queues(struct port *p, const struct port_file *f, unsigned int which)
{
	/* a file of another session has no input here to flush */
	if ((which & TTY_FLUSH_IN) && f && f->session == p->rxq_session)
		port_flush_input(p);
	if (which & TTY_FLUSH_OUT)
		port_flush_output(p); /* its writers are served once it is answered */
}

/*
 * New settings.  Switching canonical mode on makes what readers have not
 * read one line; switching it off makes the line being edited readable,
 * and each VEOF a NUL byte (n_tty_set_termios()).  IXON off lets stopped
 * output go.
 */
static void termios_changed(struct port *p, const struct termios2 *old)
{
	const struct termios2 *t = &p->tty.termios;

	if ((old->c_lflag ^ t->c_lflag) & (ICANON | EXTPROC)) {
		if (!canonical(p))
			port_eofs_to_nul(p);
		port_lines_clear(p);
		if (canonical(p) && byteq_len(&p->rxq)) {
			uint8_t last;

			/* n_tty marks the last byte a line's end: a NUL there is a VEOF */
			byteq_peek(&p->rxq, byteq_len(&p->rxq) - 1, &last, 1);
			if (!last)
				byteq_truncate(&p->rxq, byteq_len(&p->rxq) - 1);
			port_lines_add(p, byteq_len(&p->rxq));
			p->lines.eof[p->lines.head] = !last; /* a NUL again if ICANON goes off */
		} else if (!canonical(p)) {
			size_t n = byteq_push(&p->rxq, p->ldisc.line, p->ldisc.line_len);

			p->stats.rx_discarded += p->ldisc.line_len - n;
		}
		ldisc_flush_line(&p->ldisc);
		p->ldisc.lnext = false;
	}
	/*
	 * n_tty_set_termios(): IXON going off runs start_tty() and
	 * process_echoes() unless TCOOFF stopped output, whether a STOP had
	 * stopped it or not: echoes that found no room wait in the echo ring
	 * with output running too (after a flood), and so do the echoes a TCOON
	 * left there; they go here.
	 */
	if ((old->c_iflag & IXON) && !(t->c_iflag & IXON) && !p->tty.output_stopped) {
		p->tty.flow_stopped = false;
		port_process_echoes(p);
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
		if (port_rx_held(p)) {
			p->stats.rx_discarded++;
			return;
		}
		p->rxq_session = f->session;
	}
	port_receive(p, &c, 1, p->last_rx_ms);
}

/*
 * TIOCOUTQ's count: the kernel adds its write buffer's bytes to the answer
 * (kernel-patches/stream-write), a drain's until it is answered, so the
 * part of a drain parked for room that txq already holds is counted there.
 */
static size_t tx_queued_apart(const struct port *p)
{
	size_t n = port_tx_queued(p);

	for (const struct parked *e = p->writes.head; e; e = e->next)
		if (e->buffered && !e->flushed) /* a flushed one's went with txq */
			n -= e->done;
	return n;
}

/*
 * Does this answer need the bytes pushed to the kernel that a read() has
 * not taken (port_push.c "Taking bytes back")?  An input flush drops
 * them, FIONREAD counts them, and settings under which they may not be
 * pushed must not find them there.
 */
static bool wants_input_back(const struct port *p, const struct port_file *f,
			     const struct tty_ioctl *io, const struct tty_reply *r,
			     const struct termios2 *old)
{
	if (r->action != TTY_ANSWER || r->err || !f || f->session != p->rxq_session)
		return false;
	if (io->cmd == FIONREAD || (r->flush & TTY_FLUSH_IN))
		return true;
	return port_settings_pushable(old) && !port_settings_pushable(&p->tty.termios);
}

static void park_ioctl_fields(struct parked *e, const struct tty_ioctl *io)
{
	e->cmd = io->cmd;
	e->arg = io->arg;
	e->out_size = io->out_len;
	e->compat = io->compat;
	e->caller_admin = io->caller_admin;
}

/*
 * Run one tty ioctl and do what the tty says.  Returns true when req was
 * answered or parked, false when it must wait (for the output to drain,
 * or for the kernel's bytes: parked->input_back) and the caller keeps it
 * (parked: the entry of a parked ioctl being retried, else NULL).
 */
static bool run_ioctl(struct port *p, void *req, uint64_t fh, const struct tty_ioctl *io,
		      struct parked *parked)
{
	struct port_file *f = port_file_find(p, fh);
	struct tty_context ctx;
	bool was_stopped = p->tty.output_stopped || p->tty.flow_stopped;
	struct termios2 old = p->tty.termios;
	struct tty saved = p->tty;
	struct port_file *held;
	struct tty_reply r;
	struct parked *e;

	if (io->cmd == FIONREAD)
		port_start_listening(p, f);
	ctx = (struct tty_context){
		.rx_queued = port_rx_avail(p, f),
		.tx_queued = tx_queued_apart(p),
		.carrier = p->carrier,
		.drained = output_drained(p),
		.carrier_changes = p->carrier_changes,
		.rx_bytes = p->stats.rx_bytes,
		.tx_bytes = p->stats.tx_bytes,
	};
	tty_ioctl(&p->tty, io, &ctx, &r);
	switch (r.action) {
	case TTY_FETCH:
		reply_ioctl_fetch(p, req, io->arg, r.fetch_in, r.fetch_out);
		return true;
	case TTY_WAIT_DRAIN:
	case TTY_WAIT_MODEM:
		if (parked)
			return false;
		e = port_park(p, &p->ioctls, req, fh, port_cred_of(p, fh, req), io->in, io->in_len);
		if (e)
			park_ioctl_fields(e, io);
		return true;
	case TTY_ANSWER: break;
	}
	/* nothing done yet: undone, it runs again once the bytes are back */
	if (wants_input_back(p, f, io, &r, &old) && (held = port_input_held_by(p)) &&
	    port_take_back(p, held)) {
		p->tty = saved;
		if (parked) {
			parked->input_back = true;
			return false;
		}
		e = port_park(p, &p->ioctls, req, fh, port_cred_of(p, fh, req), io->in, io->in_len);
		if (e) {
			park_ioctl_fields(e, io);
			e->input_back = true;
		}
		return true;
	}
	if (memcmp(&old, &p->tty.termios, sizeof(old)) != 0)
		termios_changed(p, &old);
	if (r.flush)
		flush_queues(p, f, r.flush);
	/*
	 * TCOON sends what waits in txq, not the echoes its stop held: n_tty's
	 * __start_tty() runs no process_echoes() (Linux 6.1 and 7.3
	 * drivers/tty/tty_io.c, tty_ioctl.c TCXONC; its write_wakeup only
	 * signals), so they wait in the echo ring for n_tty's next one (a
	 * batch that echoes, a START, a write, IXON turned off).
	 */
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
	/*
	 * The dropped drains before the flush's own answer: the kernel counts
	 * a drain in TIOCOUTQ until it is answered, and the caller may ask as
	 * soon as tcflush() returns (tests/guest/tty32.c outq).
	 */
	if (r.flush & TTY_FLUSH_OUT)
		port_answer_flushed_drains(p);
	if (r.err)
		reply_err(p, req, r.err);
	else
		reply_ioctl(p, req, r.out_len ? r.out : NULL, r.out_len);
	/* writers waiting for room: their transfer's hooks must not run with req in hand */
	if (r.flush & TTY_FLUSH_OUT)
		port_serve_writes(p);
	return true;
}

static struct parked *first_drain_waiter(const struct parked_list *l)
{
	for (struct parked *e = l->head; e; e = e->next)
		if (e->cmd != TIOCMIWAIT && !e->input_back)
			return e;
	return NULL;
}

static struct parked *first_input_back_waiter(const struct parked_list *l)
{
	for (struct parked *e = l->head; e; e = e->next)
		if (e->input_back)
			return e;
	return NULL;
}

static struct tty_ioctl parked_ioctl(const struct parked *e)
{
	return (struct tty_ioctl){
		.cmd = e->cmd,
		.arg = e->arg,
		.in = e->data,
		.in_len = e->size,
		.out_len = e->out_size,
		.compat = e->compat,
		.caller_admin = e->caller_admin,
	};
}

/*
 * The kernel's bytes are back (or will not come): run the ioctls that
 * waited for them, in order; each is off the list while it runs, and one
 * that must wait again (a drain, another take-back) goes back to the tail.
 */
void port_serve_input_back(struct port *p)
{
	size_t tries = p->ioctls.count;
	struct parked *e;

	while (tries-- && !p->taking_back && (e = first_input_back_waiter(&p->ioctls))) {
		struct tty_ioctl io = parked_ioctl(e);

		port_unpark(p, &p->ioctls, e);
		e->input_back = false;
		if (run_ioctl(p, e->req, e->fh, &io, e))
			parked_free(e);
		else
			parked_put_back(&p->ioctls, e);
	}
	/* TCFLSH may have emptied txq: drains waiting on it are done */
	port_serve_drains(p);
}

/*
 * Retry ioctls that wait for the output to drain.  Each is off the list
 * while it runs; one that must wait again goes back to the tail, and
 * each entry is tried once per call.
 */
void port_serve_drains(struct port *p)
{
	size_t tries = p->ioctls.count;
	struct parked *e;

	while (tries-- && output_drained(p) && (e = first_drain_waiter(&p->ioctls))) {
		struct tty_ioctl io = parked_ioctl(e);

		port_unpark(p, &p->ioctls, e);
		if (run_ioctl(p, e->req, e->fh, &io, e))
			parked_free(e);
		else
			parked_put_back(&p->ioctls, e);
	}
}

void port_ioctl(struct port *p, void *req, uint64_t fh, const struct tty_ioctl *io)
{
	/* a hung-up tty answers EIO (drivers/tty/tty_io.c hung_up_tty_ioctl) */
	if (port_is_hung_up(p, fh)) {
		reply_err(p, req, EIO);
	} else {
		run_ioctl(p, req, fh, io, NULL);
		/* TCFLSH may have emptied txq: drains waiting on it are done */
		port_serve_drains(p);
	}
	port_run_due_hooks(p);
}
