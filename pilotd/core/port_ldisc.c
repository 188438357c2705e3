// SPDX-License-Identifier: MIT
/*
 * The port's input side: the handheld's bytes through n_tty's processing
 * (core/ldisc.h) into rxq and its ring of canonical lines, the
 * discipline's callbacks (deliver, echo, flow, signal), and the room
 * promised to the transport.
 */
#include <string.h>

#include "log.h"

#include "port_impl.h"

void port_lines_clear(struct port *p)
{
	p->lines.head = p->lines.count = 0;
}

void port_lines_add(struct port *p, size_t len)
{
	unsigned int i = (p->lines.head + p->lines.count++) % p->lines.cap;

	p->lines.len[i] = (uint32_t)len;
	p->lines.eof[i] = false;
}

/*
 * A complete line into rxq (canonical mode): what fits of it, the rest
 * counted.  With the ring full (transfers sized before ICANON came on
 * bring more line ends than it holds) the line joins the last one: a
 * boundary is lost, never a byte.
 */
void port_add_line(struct port *p, const uint8_t *bytes, size_t len)
{
	size_t n = byteq_push(&p->rxq, bytes, len);

	p->stats.rx_discarded += len - n;
	if (len && !n)
		return;
	if (p->lines.count < p->lines.cap) {
		port_lines_add(p, n);
		p->lines.eof[(p->lines.head + p->lines.count - 1) % p->lines.cap] =
			p->ldisc.line_eof;
	} else if (!len) {
		/* an end of file with no line left: n_tty would have stopped
		 * taking bytes first; it is lost, and counted as such */
		p->stats.rx_discarded++;
		log_warn("dropped an end of file: %u lines are waiting", p->lines.cap);
	} else {
		p->lines.len[(p->lines.head + p->lines.count - 1) % p->lines.cap] += (uint32_t)n;
	}
}

/* The first n bytes of q to its end, through a small buffer: no room needed. */
static void byteq_rotate(struct byteq *q, size_t n)
{
	uint8_t buf[256];

	while (n) {
		size_t k = byteq_pop(q, buf, n < sizeof(buf) ? n : sizeof(buf));

		if (!k)
			return;
		byteq_push(q, buf, k);
		n -= k;
	}
}

/*
 * ICANON goes off: n_tty keeps a VEOF in its buffer as a NUL byte, which
 * non-canonical reads then return; here each line ended by one gets it,
 * rotating rxq once in place (what has no room left is counted).
 */
void port_eofs_to_nul(struct port *p)
{
	size_t n = byteq_len(&p->rxq), off = 0;
	bool any = false;

	for (unsigned int i = 0; i < p->lines.count; i++)
		any |= p->lines.eof[(p->lines.head + i) % p->lines.cap];
	if (!any)
		return;
	for (unsigned int i = 0; i < p->lines.count; i++) {
		unsigned int k = (p->lines.head + i) % p->lines.cap;

		byteq_rotate(&p->rxq, p->lines.len[k]);
		off += p->lines.len[k];
		if (p->lines.eof[k] && !byteq_push(&p->rxq, "", 1))
			p->stats.rx_discarded++;
	}
	if (off < n)
		byteq_rotate(&p->rxq, n - off);
}

void port_lines_pop(struct port *p)
{
	p->lines.head = (p->lines.head + 1) % p->lines.cap;
	p->lines.count--;
}

/* Received bytes are held: read, in lines, or in the line being edited. */
bool port_rx_held(const struct port *p)
{
	return byteq_len(&p->rxq) || p->lines.count || p->ldisc.line_len;
}

void port_drop_rxq(struct port *p)
{
	p->stats.rx_discarded += byteq_len(&p->rxq) + p->ldisc.line_len;
	byteq_drop(&p->rxq, byteq_len(&p->rxq));
	port_lines_clear(p);
	ldisc_flush_line(&p->ldisc);
}

/* Is an open file of rxq's session left (it may still read those bytes)? */
bool port_rxq_has_reader(const struct port *p)
{
	for (const struct port_file *f = p->files; f; f = f->next)
		if (f->session == p->rxq_session)
			return true;
	return false;
}

/*
 * Room for received bytes such that none is lost, within rxq's bound
 * (rxq_size; what lies beyond it is the reserve for bytes already in
 * flight, port_config.rx_inflight_max): less the line being edited (it
 * goes into rxq whole); in canonical mode no more bytes than lines the
 * ring can still count within PORT_LINES_MAX (each byte may end one);
 * half with PARMRK, which doubles 0xff.
 */
size_t port_rx_room(const struct port *p)
{
	size_t len = byteq_len(&p->rxq), room;

	if (!p->listening || !p->carrier)
		return 0;
	room = p->cfg.rxq_size > len ? p->cfg.rxq_size - len : 0;
	if (ldisc_input_raw(&p->tty.termios))
		return room;
	room = room > p->ldisc.line_len ? room - p->ldisc.line_len : 0;
	if (p->tty.termios.c_iflag & PARMRK)
		room /= 2;
	if (canonical(p))
		room = min_size(room, p->lines.count < PORT_LINES_MAX
					      ? PORT_LINES_MAX - p->lines.count
					      : 0);
	return room;
}

static void ld_deliver(void *ctx, const uint8_t *bytes, size_t len)
{
	struct port *p = ctx;
	size_t n;

	if (canonical(p)) {
		port_add_line(p, bytes, len);
		p->last_rx_ms = p->rx_now;
		p->rx_arrivals++;
		return;
	}
	n = byteq_push(&p->rxq, bytes, len);
	p->stats.rx_discarded += len - n;
	if (n) {
		p->last_rx_ms = p->rx_now;
		p->rx_arrivals++;
	}
}

static void ld_echo(void *ctx, const uint8_t *bytes, size_t len)
{
	struct port *p = ctx;
	size_t n = p->carrier ? byteq_push(&p->txq, bytes, len) : 0;

	/* without the handheld they go nowhere (ld_echo_room() gave room) */
	p->stats.tx_discarded += len - n;
	if (n)
		due(p, PORT_DUE_TX);
}

/*
 * The room for echoes, as n_tty sees a pty's: none while output is stopped
 * (pty_write_room()), so they wait in the discipline's echo ring, where
 * n_tty's rule keeps the newest, instead of txq; else what txq has.
 */
static size_t ld_echo_room(void *ctx)
{
	struct port *p = ctx;

	if (!p->carrier)
		return SIZE_MAX;
	if (p->tty.output_stopped || p->tty.flow_stopped)
		return 0;
	return byteq_space(&p->txq);
}

/* IXON: STOP and START from the handheld (n_tty's stop_tty(), start_tty()) */
static bool ld_flow(void *ctx, bool stop)
{
	struct port *p = ctx;

	if (stop) {
		p->tty.flow_stopped = true;
	} else if (p->tty.flow_stopped && !p->tty.output_stopped) {
		p->tty.flow_stopped = false;
		due(p, PORT_DUE_TX);
		return true;
	}
	return false;
}

/*
 * n_tty_receive_char_flow_ctrl() runs process_echoes() at a START (and
 * n_tty_receive_char_special() at an IXANY restart, n_tty_receive_signal_char()
 * without ECHO; Linux 6.1 drivers/tty/n_tty.c), and commit_echoes() at a
 * block of 256 entries: with output running the echoes are the driver's
 * then, and a STOP later in the same batch cannot hold them.  Here all that
 * waits in txq goes (tx_released).
 */
static void ld_echoes_out(void *ctx)
{
	struct port *p = ctx;

	if (!p->tty.flow_stopped && !p->tty.output_stopped)
		p->tx_released = byteq_len(&p->txq);
}

/* ISIG: nobody's controlling terminal gets no signal; only the flush */
static void ld_signal(void *ctx, uint8_t c, bool flush)
{
	struct port *p = ctx;

	(void)c;
	if (flush) {
		port_flush_input(p);
		port_flush_output(p);
		p->output_flushed = true; /* served after the round, not in the transport's call */
	}
}

static struct ldisc_ops ld_ops(struct port *p)
{
	return (struct ldisc_ops){
		.ctx = p,
		.deliver = ld_deliver,
		.echo = ld_echo,
		.echo_room = ld_echo_room,
		.flow = ld_flow,
		.echoes_out = ld_echoes_out,
		.signal = ld_signal,
	};
}

/*
 * Echoes waiting in the discipline's ring go as far as txq has room (a
 * write, IXON going off); those n_tty's rule drops count as discarded.
 */
void port_process_echoes(struct port *p)
{
	const struct ldisc_ops ops = ld_ops(p);
	uint64_t discarded = p->ldisc.echo_discarded;

	if (!ldisc_echoes_waiting(&p->ldisc))
		return;
	ldisc_process_echoes(&p->ldisc, &p->tty.termios, &ops);
	p->stats.tx_discarded += p->ldisc.echo_discarded - discarded;
}

/* The handheld's bytes (or TIOCSTI's) into the input, through n_tty's processing. */
void port_receive(struct port *p, const uint8_t *buf, size_t len, uint64_t now)
{
	const struct ldisc_ops ops = ld_ops(p);
	size_t n;

	if (!ldisc_input_raw(&p->tty.termios)) {
		uint64_t dropped = p->ldisc.dropped, discarded = p->ldisc.echo_discarded;

		p->rx_now = now;
		ldisc_receive(&p->ldisc, &p->tty.termios, buf, len, &ops);
		if (!p->tty.flow_stopped && !p->tty.output_stopped)
			p->tx_released = 0; /* output runs: a later STOP holds all again */
		p->stats.rx_discarded += p->ldisc.dropped - dropped;
		p->stats.tx_discarded += p->ldisc.echo_discarded - discarded;
		return;
	}
	n = byteq_push(&p->rxq, buf, len);
	if (n < len) { /* never by port_rx_room()'s rule */
		p->stats.rx_discarded += len - n;
		log_debug("discarded %zu received bytes: no room", len - n);
	}
	if (n) {
		p->last_rx_ms = now;
		p->rx_arrivals++;
	}
}

void port_rx_stale(struct port *p, size_t len)
{
	p->stats.rx_bytes += len;
	p->stats.rx_discarded += len;
	log_debug("discarded %zu bytes a cancelled transfer brought", len);
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
	port_receive(p, buf, len, now);
}
