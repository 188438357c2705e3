/* SPDX-License-Identifier: MIT */
/*
 * A transport: what carries the byte stream between the port
 * (core/port.h) and a handheld.  Two exist, each in its own file:
 *
 *   link_libusb.c    a handheld on this machine's USB bus (libusb)
 *   link_usbredir.c  a handheld exported by a usbredir server, such as
 *                    usbredirect on the machine with the cradle (its
 *                    connection to the server: redir_conn.c)
 *
 * What both move alike (what to submit, backpressure, errors and
 * recovery) is core/pump.h.
 *
 * Both report to the port the same way: arrival (port_carrier_up),
 * departure (port_carrier_down), what came (port_rx), and take what to
 * send (port_tx_take/port_tx_done), reading only while the port has room
 * (port_rx_room).  The port reaches a transport only through these ops,
 * which main.c wires to the port's hooks.
 */
#ifndef PILOTD_LINK_H
#define PILOTD_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "core/loop.h"
#include "core/palm.h"
#include "core/port.h"

struct link;

struct link_ops {
	/* When the transport wants on_timeout() (ms from now), or -1. */
	int (*timeout_ms)(struct link *l);
	/* After every round of the loop; timed_out when nothing else woke it. */
	void (*after_events)(struct link *l, bool timed_out);
	void (*kick_tx)(struct link *l); /* the port has bytes to send */
	void (*rx_room)(struct link *l); /* the port has room again */
	void (*last_close)(struct link *l);
	/* Let queued bytes go out (up to 2 s), let go of the handheld, free. */
	void (*stop)(struct link *l);
};

/* The head of each transport's own struct. */
struct link {
	const struct link_ops *ops;
};

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

/* Does a device that says vid:pid fit m (the port path aside)? */
static inline bool link_match_device(const struct link_match *m, uint16_t vid, uint16_t pid)
{
	if (!m->any_palm)
		return vid == m->vid && pid == m->pid;
	return palm_find_model(vid, pid) != NULL;
}

#endif
