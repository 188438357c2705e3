/* SPDX-License-Identifier: MIT */
/*
 * The pump: the bulk stream between the port and a handheld, driven the
 * same way for both transports.  A transport gives it a table of I/O
 * calls (struct pump_io: submit an IN slot, submit OUT bytes, cancel,
 * clear a halt, send the close notification), reports what came back,
 * and calls pump_drive() after each batch of its events; the pump decides
 * everything else:
 *
 *   IN   one-packet requests, up to PUMP_IN_MAX in flight, each only
 *        while the port has room for all of them (backpressure: the
 *        device NAKs instead of bytes being lost); their bytes go to
 *        port_rx() in the order the requests completed.  When no file
 *        listens any more (pump_rx_stop(), the port's rx_stop hook) the
 *        requests in flight are cancelled, so what the handheld says next
 *        stays in it, as the visor driver kills its read URBs at close;
 *   OUT  one transfer at a time from txq (port_tx_take()); what the
 *        device took leaves txq (port_tx_done()), the rest is sent again;
 *   errors  a failed transfer halts its direction; once nothing of that
 *        direction is in flight, the halt is cleared with an asynchronous
 *        CLEAR_FEATURE(ENDPOINT_HALT) (the loop never waits on the
 *        device).  A halt that cannot be cleared, or PUMP_HALTS_MAX halts
 *        within PUMP_HALTS_WINDOW_MS whatever succeeded between them,
 *        give the handheld up; a transfer that says the device is gone is
 *        a departure;
 *   close  the close notification after each last close (pump_last_close()),
 *        on the one control request the pump has in flight at a time.
 *
 * Completions only record: pump_in_done(), pump_out_done() and
 * pump_ctrl_done() touch neither the port nor the transport.  What they
 * recorded reaches the port in pump_drive(), which the transport calls
 * after its batch of events (and the port's hooks call, never inside a
 * completion), so no port hook and no transport call runs inside a
 * completion.  pump_drive() is not re-entered: a hook that drives while
 * it runs makes it go round once more.
 */
#ifndef PILOTD_PUMP_H
#define PILOTD_PUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "port.h"
#include "setup.h"

#define PUMP_IN_MAX	 32    /* one-packet IN requests in flight */
#define PUMP_IN_SIZE_MAX 1024u /* the largest wMaxPacketSize of a bulk endpoint */
/* the most the IN transfers in flight may bring at once: the port's reserve */
#define PUMP_IN_WINDOW	     (PUMP_IN_MAX * PUMP_IN_SIZE_MAX)
#define PUMP_HALTS_MAX	     10 /* halts within PUMP_HALTS_WINDOW_MS give up */
#define PUMP_HALTS_WINDOW_MS 60000u
#define PUMP_STOP_DRAIN_MS   2000 /* at stop, for queued bytes to go out */

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
	PUMP_GIVE_UP,  /* a halt that stays, too many halts, a failed submission */
};

/* The one control request of a running pump. */
enum pump_ctrl { PUMP_CTRL_NONE, PUMP_CTRL_CLEAR_IN, PUMP_CTRL_CLEAR_OUT, PUMP_CTRL_CLOSE };

/*
 * The transport's I/O.  Each call starts an asynchronous operation and
 * returns 0, -ENODEV when the device is gone, -EAGAIN to be asked again
 * at the next pump_drive(), or another -errno (the handheld is given up).
 * Completions come back through pump_in_done(), pump_out_done() and
 * pump_ctrl_done(), never from inside the call.  Cancels are best effort:
 * the transfer still completes (cancelled, or with what it carried).
 */
struct pump_io {
	int (*submit_in)(void *ctx, int slot, uint8_t *buf, size_t len);
	int (*submit_out)(void *ctx, const uint8_t *buf, size_t len);
	void (*cancel_in)(void *ctx, int slot);
	void (*cancel_out)(void *ctx);
	/* CLEAR_FEATURE(ENDPOINT_HALT) of the bulk IN (in) or OUT endpoint,
	 * and the host side's state of it (the data toggle) reset */
	int (*clear_halt)(void *ctx, bool in);
	int (*close_notification)(void *ctx);
};

/* CLEAR_FEATURE(ENDPOINT_HALT) of endpoint ep, for clear_halt(). */
static inline struct palm_ctrl pump_clear_halt_request(uint8_t ep)
{
	return (struct palm_ctrl){ .reqtype = 0x02 /* standard, to an endpoint */,
				   .request = 0x01 /* CLEAR_FEATURE */,
				   .value = 0 /* ENDPOINT_HALT */,
				   .index = ep };
}

enum pump_slot { PUMP_SLOT_FREE, PUMP_SLOT_FLYING, PUMP_SLOT_DONE };

struct pump {
	const struct pump_io *io;
	void *ctx;
	struct port *port;
	uint8_t *out_buf; /* out_cap bytes, the transport's */
	size_t out_cap;

	const char *name; /* the handheld's, for the log */
	bool running;
	bool carrier_due; /* started: port_carrier_up() at the next drive */
	size_t in_size;	  /* each IN request: one packet */
	size_t out_max;	  /* the largest OUT transfer */

	uint8_t in_buf[PUMP_IN_MAX][PUMP_IN_SIZE_MAX];
	uint8_t in_state[PUMP_IN_MAX]; /* enum pump_slot */
	bool in_stale[PUMP_IN_MAX];    /* cancelled at a last close: its bytes are not handed on */
	uint8_t in_st[PUMP_IN_MAX];    /* enum pump_status, once done */
	uint16_t in_len[PUMP_IN_MAX];
	uint8_t in_order[PUMP_IN_MAX]; /* done slots, in completion order */
	unsigned int in_done_head, in_done_count;
	unsigned int in_flight; /* slots with the transport */

	bool out_busy, out_done, out_abort;
	uint8_t out_st;
	size_t out_len, out_sent;

	enum pump_ctrl ctrl;
	bool ctrl_done, close_due;
	uint8_t ctrl_st;

	bool in_halted, out_halted;
	uint64_t halt_at[PUMP_HALTS_MAX]; /* the latest halts, a ring */
	unsigned int halts;

	bool driving, again;
	enum pump_verdict verdict;
	const char *why; /* of the verdict */
	unsigned long long rx_bytes, tx_bytes;
	/* the handheld's first bytes, until they tell its stack (logged once) */
	uint8_t first[8];
	uint8_t first_len;
	bool stack_told;
};

const char *pump_status_name(enum pump_status st);

/* Once: the transport's I/O, and its buffer for OUT transfers. */
void pump_init(struct pump *pm, const struct pump_io *io, void *ctx, struct port *port,
	       uint8_t *out_buf, size_t out_cap);
/* A handheld's stream, on hs's endpoints: in_size per IN request, out_max
 * per OUT.  The carrier goes up, and bytes flow, at the next pump_drive().
 * hs is NULL for a stream without endpoints (a network HotSync).  With
 * the port's trace on, its bytes are traced until pump_stop(). */
void pump_start(struct pump *pm, const char *name, const struct palm_hotsync *hs, size_t in_size,
		size_t out_max);
/* Nothing is submitted any more and what is in flight is cancelled;
 * what comes back still counts out of flight, but reaches the port no
 * more.  The transport hangs the port up itself (port_carrier_down()). */
void pump_stop(struct pump *pm);

/* After the transport's batch of events, and from the port's hooks. */
void pump_drive(struct pump *pm, uint64_t now);
/* The port's hooks beside tx_ready and rx_room (which only drive). */
void pump_rx_stop(struct pump *pm, uint64_t now);
void pump_abort_tx(struct pump *pm, uint64_t now);
void pump_last_close(struct pump *pm, uint64_t now);

/* Completions (record only).  data: what an IN request brought, up to
 * in_size bytes (the transport checks the length). */
void pump_in_done(struct pump *pm, int slot, enum pump_status st, const void *data, size_t len);
void pump_out_done(struct pump *pm, enum pump_status st, size_t sent);
void pump_ctrl_done(struct pump *pm, enum pump_status st);

static inline bool pump_in_flying(const struct pump *pm, int slot)
{
	return slot >= 0 && slot < PUMP_IN_MAX && pm->in_state[slot] == PUMP_SLOT_FLYING;
}

/* What the transport must do about the handheld (after the events). */
static inline enum pump_verdict pump_verdict(const struct pump *pm)
{
	return pm->verdict;
}

/* Transfers and control requests with the transport. */
static inline unsigned int pump_busy(const struct pump *pm)
{
	return pm->in_flight + (pm->out_busy && !pm->out_done) +
	       (pm->ctrl != PUMP_CTRL_NONE && !pm->ctrl_done);
}

/* Recorded completions, or a due carrier: pump_drive() has work. */
static inline bool pump_pending(const struct pump *pm)
{
	return pm->running &&
	       (pm->carrier_due || pm->in_done_count || pm->out_done || pm->ctrl_done);
}

#endif
