// SPDX-License-Identifier: MIT
/* The bulk pump; see pump.h. */
#include <errno.h>
#include <string.h>

#include "log.h"
#include "pump.h"
#include "setup.h"
#include "trace.h"

const char *pump_status_name(enum pump_status st)
{
	static const char *const names[] = {
		[PUMP_OK] = "ok",	    [PUMP_CANCELLED] = "cancelled",
		[PUMP_TIMEOUT] = "timeout", [PUMP_STALL] = "stall",
		[PUMP_BABBLE] = "babble",   [PUMP_ERROR] = "error",
		[PUMP_GONE] = "no device",
	};

	return (unsigned int)st < sizeof(names) / sizeof(names[0]) ? names[st] : "unknown";
}

void pump_init(struct pump *pm, const struct pump_io *io, void *ctx, struct port *port,
	       uint8_t *out_buf, size_t out_cap)
{
	memset(pm, 0, sizeof(*pm));
	pm->io = io;
	pm->ctx = ctx;
	pm->port = port;
	pm->out_buf = out_buf;
	pm->out_cap = out_cap;
}

void pump_start(struct pump *pm, const char *name, const struct palm_hotsync *hs, size_t in_size,
		size_t out_max)
{
	pump_init(pm, pm->io, pm->ctx, pm->port, pm->out_buf, pm->out_cap);
	pm->name = name;
	pm->running = true;
	pm->carrier_due = true;
	pm->in_size = in_size < PUMP_IN_SIZE_MAX ? in_size : PUMP_IN_SIZE_MAX;
	pm->out_max = out_max < pm->out_cap ? out_max : pm->out_cap;
	if (pm->port->trace)
		trace_arrival(pm->port->trace, name, hs ? hs->in_ep : 0, hs ? hs->out_ep : 0,
			      pm->in_size);
}

static void cancel_in_flight(struct pump *pm)
{
	for (int i = 0; i < PUMP_IN_MAX; i++)
		if (pm->in_state[i] == PUMP_SLOT_FLYING)
			pm->io->cancel_in(pm->ctx, i);
}

void pump_stop(struct pump *pm)
{
	if (!pm->running)
		return;
	if (pm->port->trace)
		trace_departure(pm->port->trace);
	pm->running = false;
	pm->carrier_due = false;
	pm->close_due = false;
	pm->verdict = PUMP_FINE; /* acted on: it does not carry to the next */
	cancel_in_flight(pm);
	if (pm->out_busy && !pm->out_done)
		pm->io->cancel_out(pm->ctx);
	/* what came back and was not handed on is dropped with the session */
	for (int i = 0; i < PUMP_IN_MAX; i++)
		if (pm->in_state[i] == PUMP_SLOT_DONE)
			pm->in_state[i] = PUMP_SLOT_FREE;
	pm->in_done_count = 0;
	if (pm->out_done)
		pm->out_busy = pm->out_done = false;
	if (pm->ctrl_done) {
		pm->ctrl = PUMP_CTRL_NONE;
		pm->ctrl_done = false;
	}
}

static void decide(struct pump *pm, enum pump_verdict v, const char *why)
{
	if (pm->verdict == PUMP_FINE) {
		pm->verdict = v;
		pm->why = why;
	}
}

/* A call to the transport failed: -EAGAIN waits for the next drive. */
static void io_failed(struct pump *pm, int r)
{
	if (r == -ENODEV)
		decide(pm, PUMP_DEPARTED, "left the bus");
	else if (r != -EAGAIN)
		decide(pm, PUMP_GIVE_UP, "a transfer could not be submitted; giving up on it");
}

/*
 * A halt, counted whatever succeeded before it: the PUMP_HALTS_MAX-th
 * within the window gives up, so a device that halts, works and halts
 * again is not served for ever.
 */
static void count_halt(struct pump *pm, uint64_t now)
{
	pm->halt_at[pm->halts % PUMP_HALTS_MAX] = now;
	pm->halts++;
	if (pm->halts >= PUMP_HALTS_MAX &&
	    now - pm->halt_at[pm->halts % PUMP_HALTS_MAX] <= PUMP_HALTS_WINDOW_MS)
		decide(pm, PUMP_GIVE_UP, "its endpoints halted too often; giving up on it");
}

/* A transfer failed with the device still there: halt its direction. */
static void failed(struct pump *pm, bool in, enum pump_status st, uint64_t now)
{
	bool *halted = in ? &pm->in_halted : &pm->out_halted;

	if (st == PUMP_GONE) {
		decide(pm, PUMP_DEPARTED, "left the bus");
		return;
	}
	if (*halted)
		return;
	log_warn("%s: bulk %s failed (%s); recovering", pm->name, in ? "IN" : "OUT",
		 pump_status_name(st));
	if (pm->port->trace)
		trace_event(pm->port->trace, "bulk %s failed (%s)", in ? "IN" : "OUT",
			    pump_status_name(st));
	*halted = true;
	count_halt(pm, now);
}

static void check_status(struct pump *pm, bool in, enum pump_status st, uint64_t now)
{
	if (st != PUMP_OK && st != PUMP_CANCELLED && st != PUMP_TIMEOUT)
		failed(pm, in, st, now);
}

/*
 * Say once which stack the handheld speaks, from its first bytes
 * (palm-protocol.md section 4): a user whose sync tool waits for the
 * other one (ColdSync waited for SLP from a Treo 650 that spoke NetSync)
 * reads it in the log.  At most PALM_STACK_BYTES bytes are kept.
 */
static void tell_stack(struct pump *pm, const uint8_t *b, size_t len)
{
	char hex[3 * sizeof(pm->first) + 8];
	const char *stack;

	while (len > 0 && pm->first_len < PALM_STACK_BYTES) {
		pm->first[pm->first_len++] = *b++;
		len--;
	}
	stack = palm_stack_of(pm->first, pm->first_len);
	if (!stack && pm->first_len < PALM_STACK_BYTES)
		return; /* too few to tell yet */
	pm->stack_told = true;
	palm_hex(hex, sizeof(hex), pm->first, pm->first_len, sizeof(pm->first));
	if (stack)
		log_info("%s speaks %s: its first bytes are %s (%s)", pm->name, stack, hex,
			 strcmp(stack, "SLP") == 0 ? "an SLP frame" : "the NET handshake");
	else
		log_info("%s: its first bytes (%s) are neither an SLP frame nor the NET handshake",
			 pm->name, hex);
}

/* Recorded IN completions to the port, in the order they came. */
static void deliver_in(struct pump *pm, uint64_t now)
{
	while (pm->running && pm->in_done_count > 0) {
		int slot = pm->in_order[pm->in_done_head];

		pm->in_done_head = (pm->in_done_head + 1) % PUMP_IN_MAX;
		pm->in_done_count--;
		if (pm->in_len[slot] > 0) {
			pm->rx_bytes += pm->in_len[slot];
			if (!pm->stack_told && !pm->in_stale[slot])
				tell_stack(pm, pm->in_buf[slot], pm->in_len[slot]);
			if (pm->in_stale[slot])
				port_rx_stale(pm->port, pm->in_len[slot]);
			else
				port_rx(pm->port, pm->in_buf[slot], pm->in_len[slot], now);
		}
		pm->in_state[slot] = PUMP_SLOT_FREE;
		check_status(pm, true, pm->in_st[slot], now);
	}
}

static void deliver_out(struct pump *pm, uint64_t now)
{
	if (!pm->running || !pm->out_done)
		return;
	pm->out_busy = pm->out_done = false;
	pm->tx_bytes += pm->out_sent;
	check_status(pm, false, pm->out_st, now);
	/* what the device took leaves txq; the rest is sent again */
	port_tx_done(pm->port, pm->out_sent);
}

static void deliver_ctrl(struct pump *pm)
{
	enum pump_ctrl what = pm->ctrl;

	if (!pm->running || !pm->ctrl_done)
		return;
	pm->ctrl = PUMP_CTRL_NONE;
	pm->ctrl_done = false;
	if (pm->ctrl_st == PUMP_GONE)
		decide(pm, PUMP_DEPARTED, "left the bus");
	else if (what == PUMP_CTRL_CLOSE)
		return; /* told or not, the close is done */
	else if (pm->ctrl_st != PUMP_OK)
		decide(pm, PUMP_GIVE_UP, "the endpoint halt could not be cleared");
	else {
		if (what == PUMP_CTRL_CLEAR_IN)
			pm->in_halted = false;
		else
			pm->out_halted = false;
		log_info("%s: bulk %s recovered", pm->name,
			 what == PUMP_CTRL_CLEAR_IN ? "IN" : "OUT");
	}
}

/*
 * The control request to send now: a halt to clear once nothing of its
 * direction is in flight (the others come back by themselves, each
 * stalls; they are never cancelled, as a cancel can cross a completion
 * that carries a packet), else the close notification.
 */
static enum pump_ctrl ctrl_due(const struct pump *pm)
{
	if (pm->in_halted && pm->in_flight == 0)
		return PUMP_CTRL_CLEAR_IN;
	if (pm->out_halted && !pm->out_busy)
		return PUMP_CTRL_CLEAR_OUT;
	return pm->close_due ? PUMP_CTRL_CLOSE : PUMP_CTRL_NONE;
}

static void start_ctrl(struct pump *pm)
{
	enum pump_ctrl what = pm->ctrl == PUMP_CTRL_NONE ? ctrl_due(pm) : PUMP_CTRL_NONE;
	int r;

	if (what == PUMP_CTRL_NONE)
		return;
	if (what == PUMP_CTRL_CLOSE)
		r = pm->io->close_notification(pm->ctx);
	else
		r = pm->io->clear_halt(pm->ctx, what == PUMP_CTRL_CLEAR_IN);
	if (r < 0) {
		io_failed(pm, r);
		return;
	}
	pm->ctrl = what;
	if (what == PUMP_CTRL_CLOSE)
		pm->close_due = false;
}

/* The IN slot to submit now, or -1. */
static int in_next(const struct pump *pm)
{
	unsigned int held = pm->in_flight + pm->in_done_count;

	if (pm->in_halted || held >= PUMP_IN_MAX)
		return -1;
	/* backpressure: room for this one and all in flight, or the reader is
	 * behind (or nobody listens, port_rx_room() 0) */
	if (port_rx_room(pm->port) < (held + 1) * pm->in_size)
		return -1;
	for (int i = 0; i < PUMP_IN_MAX; i++)
		if (pm->in_state[i] == PUMP_SLOT_FREE)
			return i;
	return -1;
}

static void submit_in(struct pump *pm)
{
	int slot, r;

	while (pm->running && pm->verdict == PUMP_FINE && (slot = in_next(pm)) >= 0) {
		r = pm->io->submit_in(pm->ctx, slot, pm->in_buf[slot], pm->in_size);
		if (r < 0) {
			io_failed(pm, r);
			return;
		}
		pm->in_state[slot] = PUMP_SLOT_FLYING;
		pm->in_stale[slot] = false;
		pm->in_flight++;
	}
}

static void submit_out(struct pump *pm)
{
	size_t n;
	int r;

	if (!pm->running || pm->verdict != PUMP_FINE || pm->out_busy || pm->out_halted)
		return;
	n = port_tx_take(pm->port, pm->out_buf, pm->out_max);
	if (n == 0 || !pm->running)
		return;
	r = pm->io->submit_out(pm->ctx, pm->out_buf, n);
	if (r < 0) {
		port_tx_done(pm->port, 0); /* nothing went */
		io_failed(pm, r);
		return;
	}
	pm->out_busy = true;
	pm->out_abort = false;
	pm->out_len = n;
}

void pump_drive(struct pump *pm, uint64_t now)
{
	if (pm->driving) {
		pm->again = true; /* a hook of a port call below: once more */
		return;
	}
	pm->driving = true;
	do {
		pm->again = false;
		if (pm->running && pm->carrier_due) {
			pm->carrier_due = false;
			port_carrier_up(pm->port);
		}
		deliver_in(pm, now);
		deliver_out(pm, now);
		deliver_ctrl(pm);
		if (!pm->running || pm->verdict != PUMP_FINE)
			break;
		start_ctrl(pm);
		submit_in(pm);
		submit_out(pm);
	} while (pm->again);
	pm->driving = false;
}

/*
 * Nobody listens: what the IN requests in flight would bring is not taken.
 * A cancel can cross a completion that carries bytes (the device had
 * answered; a usbredir server replied before it read the cancel): those
 * belong to the session that ended and are counted, never handed to a
 * file opened meanwhile.
 */
void pump_rx_stop(struct pump *pm, uint64_t now)
{
	if (pm->running) {
		for (int i = 0; i < PUMP_IN_MAX; i++)
			pm->in_stale[i] = pm->in_state[i] == PUMP_SLOT_FLYING;
		cancel_in_flight(pm);
	}
	pump_drive(pm, now);
}

/* The port gave up on the bytes in flight; what comes back is settled. */
void pump_abort_tx(struct pump *pm, uint64_t now)
{
	if (pm->running && pm->out_busy && !pm->out_done && !pm->out_abort) {
		pm->out_abort = true;
		pm->io->cancel_out(pm->ctx);
	}
	pump_drive(pm, now);
}

/* The visor driver tells the handheld on every close of the port. */
void pump_last_close(struct pump *pm, uint64_t now)
{
	if (pm->running)
		pm->close_due = true;
	pump_drive(pm, now);
}

void pump_in_done(struct pump *pm, int slot, enum pump_status st, const void *data, size_t len)
{
	if (!pump_in_flying(pm, slot))
		return;
	pm->in_flight--;
	if (!pm->running) {
		pm->in_state[slot] = PUMP_SLOT_FREE;
		return;
	}
	if (len > pm->in_size)
		len = pm->in_size; /* the transport drops such a device */
	if (len > 0 && data != pm->in_buf[slot])
		memcpy(pm->in_buf[slot], data, len);
	pm->in_len[slot] = (uint16_t)len;
	pm->in_st[slot] = (uint8_t)st;
	pm->in_state[slot] = PUMP_SLOT_DONE;
	pm->in_order[(pm->in_done_head + pm->in_done_count) % PUMP_IN_MAX] = (uint8_t)slot;
	pm->in_done_count++;
	if (pm->port->trace && len > 0) {
		trace_bytes(pm->port->trace, TRACE_FROM_HANDHELD, pm->in_buf[slot], len);
		if (pm->in_stale[slot])
			trace_event(pm->port->trace,
				    "discarded: nobody listens since the last close");
	}
}

void pump_out_done(struct pump *pm, enum pump_status st, size_t sent)
{
	if (!pm->out_busy || pm->out_done)
		return;
	if (!pm->running) {
		pm->out_busy = false;
		return;
	}
	pm->out_done = true;
	pm->out_st = (uint8_t)st;
	pm->out_sent = sent < pm->out_len ? sent : pm->out_len; /* never more than was sent */
	if (pm->port->trace && pm->out_sent > 0)
		trace_bytes(pm->port->trace, TRACE_TO_HANDHELD, pm->out_buf, pm->out_sent);
}

void pump_ctrl_done(struct pump *pm, enum pump_status st)
{
	if (pm->ctrl == PUMP_CTRL_NONE || pm->ctrl_done)
		return;
	if (!pm->running) {
		pm->ctrl = PUMP_CTRL_NONE;
		return;
	}
	pm->ctrl_done = true;
	pm->ctrl_st = (uint8_t)st;
}
