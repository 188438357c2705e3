// SPDX-License-Identifier: MIT
/* The bulk pump; see pump.h. */
#include <string.h>

#include "log.h"
#include "pump.h"

const char *pump_status_name(enum pump_status st)
{
	static const char *const names[] = {
		[PUMP_OK] = "ok",	    [PUMP_CANCELLED] = "cancelled", [PUMP_TIMEOUT] = "timeout",
		[PUMP_STALL] = "stall",	    [PUMP_BABBLE] = "babble",	    [PUMP_ERROR] = "error",
		[PUMP_GONE] = "no device",
	};

	return (unsigned int)st < sizeof(names) / sizeof(names[0]) ? names[st] : "unknown";
}

void pump_start(struct pump *pm, struct port *port, const char *name, size_t in_size,
		size_t out_max)
{
	*pm = (struct pump){
		.port = port,
		.name = name,
		.running = true,
		.in_size = in_size,
		.out_max = out_max,
	};
}

void pump_stop(struct pump *pm)
{
	pm->running = false;
}

/* A transfer of a stopped pump came back: nothing goes to the port. */
static void settle(struct pump *pm, int slot)
{
	if (slot < 0) {
		pm->out_busy = false;
	} else if (pm->in_busy[slot]) {
		pm->in_busy[slot] = false;
		pm->in_flight--;
	}
}

static void decide(struct pump *pm, enum pump_verdict v, const char *why)
{
	if (pm->verdict == PUMP_FINE) {
		pm->verdict = v;
		pm->why = why;
	}
}

int pump_in_next(const struct pump *pm)
{
	if (!pm->running || pm->in_halted || pm->verdict != PUMP_FINE ||
	    pm->in_flight >= PUMP_IN_MAX)
		return -1;
	/* backpressure: room for this one and all in flight, or the reader is
	 * behind (or nobody listens, port_rx_room() 0) */
	if (port_rx_room(pm->port) < (pm->in_flight + 1) * pm->in_size)
		return -1;
	for (int i = 0; i < PUMP_IN_MAX; i++)
		if (!pm->in_busy[i])
			return i;
	return -1;
}

void pump_in_submitted(struct pump *pm, int slot)
{
	pm->in_busy[slot] = true;
	pm->in_flight++;
}

/* A transfer failed with the device still there: halt its direction. */
static void failed(struct pump *pm, bool *halted, bool in, enum pump_status st)
{
	if (st == PUMP_GONE) {
		decide(pm, PUMP_DEPARTED, "left the bus");
		return;
	}
	if (*halted)
		return;
	log_warn("%s: bulk %s failed (%s); recovering", pm->name, in ? "IN" : "OUT",
		 pump_status_name(st));
	*halted = true;
	if (++pm->errors_in_a_row > PUMP_ERRORS_MAX)
		decide(pm, PUMP_GIVE_UP, "too many USB errors in a row; giving up on it");
}

void pump_in_done(struct pump *pm, int slot, enum pump_status st, const void *data, size_t len,
		  uint64_t now)
{
	if (slot < 0 || slot >= PUMP_IN_MAX || !pm->in_busy[slot])
		return;
	if (!pm->running) {
		settle(pm, slot);
		return;
	}
	pm->in_busy[slot] = false;
	pm->in_flight--;
	if (len > 0) {
		pm->rx_bytes += len;
		port_rx(pm->port, data, len, now);
	}
	switch (st) {
	case PUMP_OK: pm->errors_in_a_row = 0; break;
	case PUMP_CANCELLED:
	case PUMP_TIMEOUT: break;
	default: failed(pm, &pm->in_halted, true, st); break;
	}
}

size_t pump_out_take(struct pump *pm, void *buf)
{
	size_t n;

	if (!pm->running || pm->out_busy || pm->out_halted || pm->verdict != PUMP_FINE)
		return 0;
	n = port_tx_take(pm->port, buf, pm->out_max);
	if (n) {
		pm->out_busy = true;
		pm->out_len = n;
	}
	return n;
}

void pump_out_done(struct pump *pm, enum pump_status st, size_t sent)
{
	if (!pm->out_busy)
		return;
	if (!pm->running) {
		settle(pm, -1);
		return;
	}
	pm->out_busy = false;
	if (sent > pm->out_len)
		sent = pm->out_len; /* never more than was sent */
	pm->tx_bytes += sent;
	if (st == PUMP_OK)
		pm->errors_in_a_row = 0;
	else if (st != PUMP_CANCELLED)
		failed(pm, &pm->out_halted, false, st);
	/* what the device took leaves txq; the rest is sent again */
	port_tx_done(pm->port, sent);
}

enum pump_clear pump_recover(const struct pump *pm)
{
	if (!pm->running || pm->verdict != PUMP_FINE)
		return PUMP_CLEAR_NONE;
	/* the other transfers of a halted direction come back by themselves
	 * (each stalls): they are never cancelled, as a cancel can cross a
	 * completion that carries a packet */
	if (pm->in_halted && pm->in_flight == 0)
		return PUMP_CLEAR_IN;
	if (pm->out_halted && !pm->out_busy)
		return PUMP_CLEAR_OUT;
	return PUMP_CLEAR_NONE;
}

void pump_halt_cleared(struct pump *pm, enum pump_clear which, bool ok)
{
	if (!ok) {
		decide(pm, PUMP_GIVE_UP, "the endpoint halt could not be cleared");
		return;
	}
	if (which == PUMP_CLEAR_IN)
		pm->in_halted = false;
	else if (which == PUMP_CLEAR_OUT)
		pm->out_halted = false;
	log_info("%s: bulk %s recovered", pm->name, which == PUMP_CLEAR_IN ? "IN" : "OUT");
}
