/* SPDX-License-Identifier: MIT */
/*
 * What `systemctl status pilotd` shows (sd_notify STATUS=, sent by
 * service.c): the handheld docked (its model, ID and where it is), the
 * open files, and the last HotSync's start, length and bytes.  The text
 * is made here, in plain C, from the port and what main.c passes in, so
 * unit-status checks it to the byte; status_update() rebuilds it only
 * when one of its inputs changed, after a round of the loop that ran
 * anyway: no timer, no wake-up of its own.
 */
#ifndef PILOTD_STATUS_H
#define PILOTD_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "port.h"

#define STATUS_MAX 256

struct status_sync {
	bool valid;
	int64_t start;	 /* wall clock, s since the epoch (UTC) */
	uint64_t ms;	 /* from arrival to departure */
	uint64_t rx, tx; /* bytes from and to the handheld */
};

struct status_facts {
	const char *devname;  /* "pilot" */
	const char *handheld; /* the transport's name for it, or NULL: none */
	unsigned int files;   /* open files */
	struct status_sync last;
};

/* The text: "Palm m500 (0830:0060, bus 1 address 3) on /dev/pilot; ..." */
size_t status_format(char *buf, size_t size, const struct status_facts *f);

struct status_watch {
	bool seen;	  /* text holds something */
	bool carrier;	  /* as last seen */
	uint64_t session; /* the port's arrivals, as last seen */
	unsigned int files;
	const char *handheld;
	uint64_t start_ms;  /* this session's arrival, monotonic */
	int64_t start_wall; /* and on the wall clock */
	struct status_sync last;
	char text[STATUS_MAX];
};

/*
 * After a round of the loop: note arrivals and departures (a departure
 * makes the session the last HotSync) and return true when the text
 * changed, to be sent.  wall_clock() (s since the epoch) is asked only
 * at an arrival.  handheld: the transport's name for the one
 * attached (read only while the port's carrier is up).
 */
bool status_update(struct status_watch *w, const struct port *p, const char *devname,
		   const char *handheld, uint64_t now_ms, int64_t (*wall_clock)(void));

#endif
