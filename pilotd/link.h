/* SPDX-License-Identifier: MIT */
/*
 * A transport: what carries the byte stream between the port
 * (core/port.h) and a handheld.  Three exist, each in its own file:
 *
 *   link_libusb.c    a handheld on this machine's USB bus (libusb)
 *   link_usbredir.c  a handheld exported by a usbredir server, such as
 *                    usbredirect on the machine with the cradle (its
 *                    connection to the server: redir_conn.c)
 *   link_netsync.c   a handheld's or an emulator's network HotSync, a TCP
 *                    connection it makes to pilotd (rules: core/netsync.h)
 *
 * Each finds its handheld, runs its set-up (core/setup.h; none over
 * TCP) and carries out the I/O calls of the pump (core/pump.h), which
 * drives the stream alike for all: what to submit, backpressure, errors and recovery, the
 * carrier, the close notification.  The port's transport hooks go to the
 * pump (link_tx_ready() ... below, which main.c wires to the hooks); the
 * departure (port_carrier_down) is the transport's.
 */
#ifndef PILOTD_LINK_H
#define PILOTD_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "core/loop.h"
#include "core/netsync.h"
#include "core/palm.h"
#include "core/port.h"
#include "core/pump.h"

struct link;

struct link_ops {
	/* When the transport wants on_timeout() (ms from now), or -1. */
	int (*timeout_ms)(struct link *l);
	/* After every round of the loop; timed_out when nothing else woke it. */
	void (*after_events)(struct link *l, bool timed_out);
	/* Let queued bytes go out (up to 2 s), let go of the handheld, free. */
	void (*stop)(struct link *l);
};

/* The head of each transport's own struct. */
struct link {
	const struct link_ops *ops;
	struct pump *pump; /* its stream */
};

/* The port's transport hooks (never called inside a completion). */
static inline void link_tx_ready(struct link *l)
{
	pump_drive(l->pump, loop_now_ms()); /* the port has bytes to send */
}

static inline void link_rx_room(struct link *l)
{
	pump_drive(l->pump, loop_now_ms());
}

static inline void link_tx_abort(struct link *l)
{
	pump_abort_tx(l->pump, loop_now_ms());
}

static inline void link_rx_stop(struct link *l)
{
	pump_rx_stop(l->pump, loop_now_ms());
}

static inline void link_last_close(struct link *l)
{
	pump_last_close(l->pump, loop_now_ms());
}

/* Which handhelds to take. */
struct link_match {
	bool any_palm; /* every known model, else only vid:pid */
	uint16_t vid, pid;
	const char *port_path; /* libusb only: the device there ("1-1.2"), or NULL */
};

int link_libusb_start(struct link **l, const struct link_match *m, struct loop *loop,
		      struct port *port);
/* server: "HOST:PORT", "[IPv6]:PORT" or a Unix socket path (with a '/'). */
int link_usbredir_start(struct link **l, const struct link_match *m, const char *server,
			struct loop *loop, struct port *port);

/* --netsync: where to listen, whom to take, how long a silent one stays. */
struct netsync_config {
	const char *listen; /* "[ADDR:]PORT" (core/netsync.h) */
	struct netsync_net allow[NETSYNC_ALLOW_MAX];
	unsigned int nallow;
	uint64_t idle_ms; /* NETSYNC_IDLE_MS; tests set less */
};

int link_netsync_start(struct link **l, const struct netsync_config *cfg, struct loop *loop,
		       struct port *port);

/* Does a device that says vid:pid fit m (the port path aside)? */
static inline bool link_match_device(const struct link_match *m, uint16_t vid, uint16_t pid)
{
	if (!m->any_palm)
		return vid == m->vid && pid == m->pid;
	return palm_find_model(vid, pid) != NULL;
}

#endif
