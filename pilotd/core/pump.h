/* SPDX-License-Identifier: MIT */
/*
 * The pump: what both transports decide alike about the bulk stream
 * between the port and a handheld, without any I/O (sans-I/O, as
 * usbredirparser is).  A transport asks it what to submit, reports what
 * came back, and carries out its decisions:
 *
 *   IN   one-packet requests, up to PUMP_IN_MAX in flight, each only
 *        while the port has room for all of them (backpressure: the
 *        device NAKs instead of bytes being lost); their bytes go to
 *        port_rx();
 *   OUT  one transfer at a time from txq (port_tx_take()); what the
 *        device took leaves txq (port_tx_done()), the rest is sent again;
 *   errors  a failed transfer halts its direction; once nothing of that
 *        direction is in flight, the transport clears the halt
 *        (pump_recover()); PUMP_ERRORS_MAX failures in a row with no
 *        success between them, or a halt that cannot be cleared, give
 *        the handheld up; a transfer that says the device is gone is a
 *        departure.
 *
 * The pump never calls the transport: completions only update its state
 * and the port's, and the transport acts on pump_verdict() from its own
 * loop (after the batch of events), never inside a completion.
 */
#ifndef PILOTD_PUMP_H
#define PILOTD_PUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "port.h"

#define PUMP_IN_MAX	    32 /* one-packet IN requests in flight */
#define PUMP_ERRORS_MAX	    10 /* failed transfers in a row before giving up */
#define PUMP_STOP_DRAIN_MS  2000 /* at stop, for queued bytes to go out */

enum pump_status {
	PUMP_OK,
	PUMP_CANCELLED,
	PUMP_TIMEOUT,
	PUMP_STALL,
	PUMP_BABBLE,
	PUMP_ERROR,
	PUMP_GONE, /* the device is not there any more */
};

enum pump_verdict {
	PUMP_FINE,
	PUMP_DEPARTED, /* a transfer said the device left */
	PUMP_GIVE_UP,  /* too many errors, or a halt that stays */
};

enum pump_clear { PUMP_CLEAR_NONE, PUMP_CLEAR_IN, PUMP_CLEAR_OUT };

struct pump {
	struct port *port;
	const char *name; /* the handheld's, for the log */
	bool running;
	size_t in_size; /* each IN request: one packet */
	size_t out_max; /* the largest OUT transfer */
	bool in_busy[PUMP_IN_MAX];
	unsigned int in_flight;
	bool out_busy;
	size_t out_len;
	bool in_halted, out_halted;
	unsigned int errors_in_a_row;
	enum pump_verdict verdict;
	const char *why; /* of the verdict */
	unsigned long long rx_bytes, tx_bytes;
};

const char *pump_status_name(enum pump_status st);

/* Bytes flow from now on: in_size per IN request, out_max per OUT. */
void pump_start(struct pump *pm, struct port *port, const char *name, size_t in_size,
		size_t out_max);
/* Nothing is submitted any more; what comes back still counts out of
 * flight, but reaches the port no more. */
void pump_stop(struct pump *pm);

/* The IN slot to submit now, or -1; pump_in_submitted() once it is. */
int pump_in_next(const struct pump *pm);
void pump_in_submitted(struct pump *pm, int slot);
void pump_in_done(struct pump *pm, int slot, enum pump_status st, const void *data, size_t len,
		  uint64_t now);

/* Bytes for an OUT transfer into buf (out_max of room), or 0; the
 * transport submits them, or calls pump_out_done(pm, PUMP_ERROR, 0). */
size_t pump_out_take(struct pump *pm, void *buf);
void pump_out_done(struct pump *pm, enum pump_status st, size_t sent);

/* Which halt to clear now, if any; then pump_halt_cleared(). */
enum pump_clear pump_recover(const struct pump *pm);
void pump_halt_cleared(struct pump *pm, enum pump_clear which, bool ok);

/* What the transport must do about the handheld (after the events). */
static inline enum pump_verdict pump_verdict(const struct pump *pm)
{
	return pm->verdict;
}

/* Transfers in flight, of both directions. */
static inline unsigned int pump_busy(const struct pump *pm)
{
	return pm->in_flight + pm->out_busy;
}

#endif
