/* SPDX-License-Identifier: MIT */
/*
 * pilotd: /dev/pilot in userspace.  One event loop (core/loop.h) drives
 * two edges that never call each other; between them sits the port
 * (core/port.h), which holds the stream queues and every session rule:
 *
 *   write(2) on /dev/pilot -> cuse_front.c -> port (txq) -> link -> bulk OUT
 *   bulk IN -> link -> port (rxq) -> cuse_front.c -> read(2) on /dev/pilot
 *
 * The link is one of three transports (link.h): link_libusb.c for a
 * handheld on this machine's bus, link_usbredir.c for one exported by a
 * usbredir server, link_netsync.c for a network HotSync.
 *
 * The edges call the port; the port reaches them through the hooks that
 * main.c wires.  All state lives in struct pilotd.
 */
#ifndef PILOTD_H
#define PILOTD_H

#include <stdbool.h>
#include <sys/types.h>

#include "core/loop.h"
#include "core/port.h"
#include "core/trace.h"
#include "core/status.h"
#include "cuse_front.h"
#include "link.h"

#define RXQ_SIZE (256u * 1024)
/* Above the kernel's largest CUSE write request (128 KiB, fs/fuse/file.c). */
#define TXQ_SIZE (512u * 1024)

struct pilotd {
	const char *devname;
	struct link_match match;
	const char *usbredir; /* --usbredir: the server, else libusb */
	struct netsync_config netsync; /* --netsync: its listen is set, else USB */
	const char *user; /* --user: run as this one once /dev/cuse is open */
	uid_t uid;
	gid_t gid;

	struct loop loop;
	struct watch sig_watch;
	struct watch read_timer; /* the port's VMIN/VTIME deadlines */
	uint64_t armed_ms;	 /* read_timer's deadline now (0: disarmed) */
	bool stop;

	struct port port;
	struct cuse_front front;
	struct link *link; /* the transport: link_libusb.c, link_usbredir.c, link_netsync.c */

	const char *trace_path; /* --trace: the sessions' bytes to this file */
	bool no_stream_data;	/* --no-stream-data */
	bool no_stream_write;	/* --no-stream-write */
	int trace_fd;
	struct trace trace;
	struct status_watch status; /* what `systemctl status` shows (service.c) */
};

#endif
