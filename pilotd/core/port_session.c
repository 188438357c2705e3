// SPDX-License-Identifier: MIT
/*
 * The port's session (as drivers/tty/tty_port.c): the carrier, a
 * departure's hangup, the last close and its closing wait, the opens that
 * wait for them.
 */
#include <asm/ioctls.h>
#include <errno.h>
#include <linux/serial.h>
#include <string.h>

#include "log.h"
#include "port_impl.h"
#include "trace.h"

/*
 * May an open go ahead now?  Not while the last session's output drains:
 * tty_open() waits for the closer's tty_lock whatever O_NONBLOCK says.
 * Then, without CLOCAL, a blocking open waits for the carrier
 * (tty_port_block_til_ready()); a non-blocking one does not.
 */
bool port_may_open(const struct port *p, bool nonblock)
{
	return !p->closing && (nonblock || p->carrier || (p->tty.termios.c_cflag & CLOCAL));
}

static struct parked *first_open_that_may_go(const struct port *p)
{
	for (struct parked *e = p->opens.head; e; e = e->next)
		if (port_may_open(p, e->nonblock))
			return e;
	return NULL;
}

static void serve_opens(struct port *p)
{
	struct parked *e;

	while ((e = first_open_that_may_go(p))) {
		struct port_cred who = { .uid = e->uid,
					 .userns = e->userns,
					 .admin = e->admin,
					 .input_key = e->input_key,
					 .input_keyed = e->input_keyed };

		port_unpark(p, &p->opens, e);
		port_open_now(p, e->req, who);
		parked_free(e);
	}
}

/* The closing drain is over: the next session may begin. */
void port_end_closing(struct port *p, bool timed_out)
{
	size_t unsent = byteq_len(&p->txq) - p->tx_inflight;

	if (timed_out && unsent) {
		log_warn("discarded %zu bytes the handheld did not take in the closing wait "
			 "(%u cs) after the last close",
			 unsent, p->tty.closing_wait);
		p->stats.tx_discarded += unsent;
		byteq_truncate(&p->txq, p->tx_inflight);
		p->tx_released = min_size(p->tx_released, p->tx_inflight);
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
 * TIOCEXCL, the window size, the locked settings); termios stays with the device, as
 * usb-serial keeps it.  At the last close, and at a departure: the
 * hung-up files' tty is gone (a new device gets a new tty), so a file
 * kept open cannot carry them to the next handheld.
 */
static void drop_tty_session(struct port *p)
{
	p->tty.exclusive = false;
	p->tty.output_stopped = p->tty.flow_stopped = false;
	memset(p->tty.winsize, 0, sizeof(p->tty.winsize));
	memset(&p->tty.locked, 0, sizeof(p->tty.locked));
	ldisc_init(&p->ldisc); /* n_tty_open() starts a new tty afresh */
}

/* The last close: unsent output may drain first (the closing wait). */
void port_last_close(struct port *p)
{
	drop_tty_session(p);
	due(p, PORT_DUE_RX_STOP); /* as usb-serial kills its read URBs at close */
	if (p->carrier && port_tx_queued(p) > 0) {
		p->closing = true; /* its deadline starts at this round's end */
		due(p, PORT_DUE_TX);
	} else {
		due(p, PORT_DUE_LAST_CLOSE);
	}
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
		port_unpark(p, &p->ioctls, e);
		reply_ioctl(p, e->req, NULL, 0);
		parked_free(e);
	}
}

/*
 * When the closing drain ends: after TIOCSSERIAL's closing_wait
 * (centiseconds), at once with ASYNC_CLOSING_WAIT_NONE, and only when the
 * output is out or the handheld leaves with ASYNC_CLOSING_WAIT_INF, as
 * tty_port_close_start() waits.
 */
uint64_t port_closing_deadline(const struct port *p, uint64_t now)
{
	if (p->tty.closing_wait == ASYNC_CLOSING_WAIT_NONE)
		return now;
	if (p->tty.closing_wait == ASYNC_CLOSING_WAIT_INF)
		return UINT64_MAX;
	return now + p->tty.closing_wait * 10ull;
}

void port_carrier_up(struct port *p)
{
	/* what is left in rxq belongs to a handheld that has gone (or to
	 * TIOCSTI on a file that waited for this one) */
	if (port_rx_held(p) && p->rxq_session != p->session + 1) {
		log_warn("dropped %zu unread bytes from the previous handheld", byteq_len(&p->rxq));
		port_drop_rxq(p);
	}
	p->carrier = true;
	p->rxq_session = ++p->session;
	p->stats.rx_bytes = p->stats.tx_bytes = 0;
	wake_modem_waiters(p);
	serve_opens(p);
	port_run_due_hooks(p);
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
		port_add_line(p, p->ldisc.line, p->ldisc.line_len);
		ldisc_flush_line(&p->ldisc);
	}
	for (struct port_file *f = p->files; f; f = f->next) {
		if (!f->hung_up) {
			f->hung_up = true;
			n++;
		}
	}
	p->live_files = p->listening = 0;
	due(p, PORT_DUE_RX_STOP);
	/* A parked read means nothing is there for it: end of file. */
	while ((e = p->reads.head)) {
		port_unpark(p, &p->reads, e);
		reply_data(p, e->req, NULL, 0);
		parked_free(e);
	}
	port_answer_all(p, &p->writes, PARKED_ANY_FH, EIO);
	/* TIOCMIWAIT too: usb-serial's answers EIO once the device is gone */
	p->carrier_changes++;
	port_answer_all(p, &p->ioctls, PARKED_ANY_FH, EIO);
	if (byteq_len(&p->txq)) {
		log_warn("discarded %zu bytes that were queued for the handheld",
			 byteq_len(&p->txq));
		p->stats.tx_discarded += byteq_len(&p->txq);
		byteq_drop(&p->txq, byteq_len(&p->txq));
	}
	p->tx_inflight = p->tx_stale = p->tx_released = 0;
	p->xchar_count = p->xchar_inflight = 0;
	p->xchar_stale = false;
	drop_tty_session(p);
	/* bytes no open file of their session can read are nobody's */
	if (port_rx_held(p) && !port_rxq_has_reader(p))
		port_drop_rxq(p);
	p->stats.hangups++;
	if (n)
		log_info("hung up %u open file%s", n, n == 1 ? "" : "s");
	if (n && p->trace)
		trace_event(p->trace, "hung up %u open file%s", n, n == 1 ? "" : "s");
	if (p->closing)
		port_end_closing(p, false);
	serve_opens(p);
}

void port_carrier_down(struct port *p)
{
	if (p->carrier)
		hang_up(p);
	port_run_due_hooks(p);
}
