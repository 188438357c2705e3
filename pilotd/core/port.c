// SPDX-License-Identifier: MIT
/*
 * The port: its hooks and rounds, and the bytes the transport takes for the
 * handheld (port.h).  Every rule lives in one of the port_*.c files, each
 * one concern, as the kernel splits a tty:
 *   port_files.c    open files, the bounds, parking and answering
 *   port_session.c  carrier, hangup, last close, closing wait (tty_port.c)
 *   port_io.c       read, write, poll: the VFS face (tty_io.c)
 *   port_ioctl.c    the tty ioctls' effects on the queues (tty_ioctl.c)
 *   port_ldisc.c    received bytes through the discipline's callbacks (n_tty)
 * Answers leave only through the hooks, and a request that cannot be
 * answered yet is parked; parked.h has the exactly-once rule.  Two more
 * rules keep it exact when a hook calls back into the port (port.h
 * "Re-entry"):
 *   - a parked request is taken off its list before it is answered, and
 *     a loop over a list re-reads the list's head after every answer;
 *   - the transport hooks run only from port_run_due_hooks(), when no
 *     request is in hand on any list.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "port_impl.h"

int port_init(struct port *p, const struct port_config *cfg, const struct port_hooks *h)
{
	*p = (struct port){ .h = *h, .cfg = *cfg };
	tty_init(&p->tty);
	ldisc_init(&p->ldisc);
	if (cfg->closing_wait_ms) /* TIOCSSERIAL may change it later */
		p->tty.closing_wait = (uint16_t)(cfg->closing_wait_ms / 10);
	p->readbuf = malloc(cfg->read_max);
	p->lines.cap = PORT_LINES_MAX + (unsigned int)cfg->rx_inflight_max;
	p->lines.len = calloc(p->lines.cap, sizeof(*p->lines.len));
	p->lines.eof = calloc(p->lines.cap, sizeof(*p->lines.eof));
	/* twice what flies: a byte that came as one may be two (PARMRK); and
	 * what a take-back brings back, the kernel's buffer (port_push.c) */
	if (!p->readbuf || !p->lines.len || !p->lines.eof ||
	    byteq_init(&p->rxq, cfg->rxq_size + 2 * cfg->rx_inflight_max +
					(h->take_back_input ? PORT_PUSH_INPUT_MAX : 0)) < 0 ||
	    byteq_init(&p->txq, cfg->txq_size) < 0) {
		port_free(p);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Call the transport hooks that came due.  Each may call back into the
 * port (a departure from inside tx_ready, say); hooks that come due
 * meanwhile are called by this loop, never by a nested one.
 */
void port_run_due_hooks(struct port *p)
{
	if (p->in_hooks)
		return;
	p->in_hooks = true;
	while (p->due) {
		unsigned int what = p->due;

		p->due = 0;
		if ((what & PORT_DUE_TX_ABORT) && p->h.tx_abort)
			p->h.tx_abort(p->h.ctx);
		if ((what & PORT_DUE_RX_STOP) && p->h.rx_stop)
			p->h.rx_stop(p->h.ctx);
		if (what & PORT_DUE_LAST_CLOSE)
			p->h.last_close(p->h.ctx);
		if (what & PORT_DUE_RX_ROOM)
			p->h.rx_room(p->h.ctx);
		if (what & PORT_DUE_TX)
			p->h.tx_ready(p->h.ctx);
	}
	p->in_hooks = false;
}

void port_free(struct port *p)
{
	while (p->files)
		port_file_remove(p, p->files->fh);
	byteq_free(&p->rxq);
	byteq_free(&p->txq);
	free(p->readbuf);
	p->readbuf = NULL;
	free(p->lines.len);
	free(p->lines.eof);
	p->lines.len = NULL;
	p->lines.eof = NULL;
}

/* Earliest of two deadlines, 0 meaning none. */
static uint64_t earliest(uint64_t a, uint64_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/* f's events reach the kernel by push_events, not by notifications */
static bool pushing(const struct port *p, const struct port_file *f)
{
	return f->push_keyed && p->h.push_events && p->push != PORT_PUSH_OFF;
}

/*
 * What n_tty wakes f's pollers for although they were told of it: input
 * came (its readers), a transfer to the handheld completed (its writers),
 * or the settings were set (everyone).  Nothing for a hung-up file: its
 * tty is gone (hung_up_tty_poll() waits on nothing), and what comes is the
 * next handheld's session's.
 */
static unsigned int news_again(const struct port *p, const struct port_file *f, unsigned int ev)
{
	unsigned int news = 0;

	if (f->hung_up)
		return 0;
	if (f->told_settings != p->tty.settings)
		return ev;
	if (f->told_rx != p->rx_arrivals)
		news |= ev & (POLLIN | POLLRDNORM);
	if (f->told_tx != p->tx_completions)
		news |= ev & (POLLOUT | POLLWRNORM);
	return news;
}

void port_file_told(const struct port *p, struct port_file *f)
{
	f->told_rx = p->rx_arrivals;
	f->told_settings = p->tty.settings;
	f->told_tx = p->tx_completions;
}

/* Pushes stop: a notification makes the kernel forget what it holds and ask. */
static void forget_pushed(struct port *p)
{
	for (struct port_file *f = p->files; f; f = f->next) {
		if (f->push_keyed && f->poll_handle) {
			p->h.notify_poll(p->h.ctx, f->poll_handle);
			f->poll_wanted = 0;
		}
	}
}

void port_push_events(struct port *p)
{
	for (struct port_file *f = p->files; f; f = f->next) {
		unsigned int ev, news;

		if (!pushing(p, f))
			continue;
		ev = port_current_events(p, f);
		news = news_again(p, f, ev);
		if (ev == f->pushed && !news)
			continue;
		/* what no poller was told of: a woken epoll ET would see it again */
		if (p->h.push_events(p->h.ctx, f->push_key, ev, (ev & ~f->polled_events) | news) < 0) {
			/* the round's end notifies, as polled_events is kept in both ways */
			log_info("the kernel asks pilotd at every poll (no FUSE_NOTIFY_POLL_EVENTS)");
			if (p->push == PORT_PUSH_ON)
				forget_pushed(p);
			p->push = PORT_PUSH_OFF;
			return;
		}
		if (p->push == PORT_PUSH_UNTRIED)
			log_info("the kernel keeps poll events: it answers poll without asking");
		p->push = PORT_PUSH_ON;
		f->pushed = ev;
		f->polled_events = ev;
		port_file_told(p, f);
	}
}

uint64_t port_after_events(struct port *p, uint64_t now)
{
	uint64_t deadline = 0;

	/* a signal character emptied txq in the round: writers and drains may go */
	if (p->output_flushed) {
		p->output_flushed = false;
		port_serve_writes(p);
		port_serve_drains(p);
	}
	/* data that came in the round wins over an interrupt, as in n_tty */
	port_serve_reads(p, now);
	if (p->interrupts_pending) {
		p->interrupts_pending = false;
		port_answer_interrupted(p, &p->reads);
		port_answer_interrupted(p, &p->writes);
		port_answer_interrupted(p, &p->ioctls);
		port_answer_interrupted(p, &p->opens);
	}
	if (p->closing && !p->closing_deadline)
		p->closing_deadline = port_closing_deadline(p, now);
	if (p->closing && now >= p->closing_deadline)
		port_end_closing(p, true);
	if (p->reads.head)
		port_read_ready(p, port_file_find(p, p->reads.head->fh), p->reads.head->size,
				p->reads.head->started_ms, now, &deadline);
	if (p->closing && p->closing_deadline != UINT64_MAX)
		deadline = earliest(deadline, p->closing_deadline);
	/* before the events: what the kernel then holds is its POLLIN, not ours */
	port_push_input(p);
	port_push_events(p);
	for (struct port_file *f = p->files; f; f = f->next) {
		unsigned int ev = port_current_events(p, f);
		unsigned int news = (ev & ~f->polled_events) | news_again(p, f, ev);

		/* what went away, or came unasked for, wakes nobody */
		if (f->poll_handle && !pushing(p, f) && (news & f->poll_wanted)) {
			p->h.notify_poll(p->h.ctx, f->poll_handle);
			f->poll_wanted = 0; /* the woken poll again, saying what they want */
		}
		f->polled_events = ev;
		port_file_told(p, f);
	}
	port_run_due_hooks(p);
	return deadline;
}

void port_shutdown(struct port *p)
{
	port_answer_all(p, &p->reads, PARKED_ANY_FH, EIO);
	port_answer_all(p, &p->writes, PARKED_ANY_FH, EIO);
	port_answer_all(p, &p->ioctls, PARKED_ANY_FH, EIO);
	port_answer_all(p, &p->opens, PARKED_ANY_FH, EIO);
	port_run_due_hooks(p);
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
	else if (p->tx_released)
		p->tx_inflight = byteq_peek(&p->txq, 0, b + n, min_size(max - n, p->tx_released));
	return n + p->tx_inflight;
}

void port_tx_done(struct port *p, size_t sent)
{
	if (sent) /* usb-serial's write callback: tty_wakeup() at each */
		p->tx_completions++;
	if (p->carrier && p->xchar_inflight) {
		size_t done =
			p->xchar_stale ? p->xchar_inflight : min_size(sent, p->xchar_inflight);

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
			p->tx_released -= min_size(p->tx_released, p->tx_stale);
			byteq_drop(&p->txq, p->tx_stale);
			p->tx_stale = 0;
		} else {
			p->tx_released -= min_size(p->tx_released, sent);
			byteq_drop(&p->txq, sent);
		}
		p->stats.tx_bytes += sent;
		p->tx_inflight = 0;
		port_serve_writes(p);
		port_serve_drains(p);
		if (p->closing && output_drained(p))
			port_end_closing(p, false);
	}
	port_run_due_hooks(p);
}
