/* SPDX-License-Identifier: MIT */
/*
 * pilotd: /dev/pilot in userspace.  One event loop (main.c) drives two
 * edges that meet in the stream queues:
 *
 *   write(2) on /dev/pilot -> cuse_front.c -> txq -> usb_link.c -> bulk OUT
 *   bulk IN -> usb_link.c -> rxq -> cuse_front.c -> read(2) on /dev/pilot
 *
 * Requests that cannot be answered yet are parked (core/parked.h) and
 * answered when the queues change.  All state lives in struct pilotd,
 * passed to every callback as user data.
 */
#ifndef PILOTD_H
#define PILOTD_H

#include <stdbool.h>
#include <stdint.h>

#include "core/byteq.h"
#include "core/parked.h"
#include "core/tty.h"

#define RXQ_SIZE (256u * 1024)
/* Above the kernel's largest CUSE write request (see write_chunk()). */
#define TXQ_SIZE (256u * 1024)

struct fuse_session;
struct fuse_pollhandle;
struct usb_link;
struct pilotd;

/* An epoll registration: fd plus what to do when it is ready. */
struct watch {
	int fd;
	void (*ready)(struct pilotd *pd, struct watch *w, uint32_t events);
};

struct pilot_file {
	struct pilot_file *next;
	uint64_t fh;
	struct fuse_pollhandle *ph; /* latest poll handle, to notify */
	unsigned int polled_events; /* what poll reported last */
	bool hung_up;		    /* its handheld left: EOF, EIO, POLLHUP */
};

/*
 * A large IN transfer ends on a short packet or when full, so a device that
 * sent a multiple of 64 bytes and then waits would strand them in a
 * half-full transfer.  A timeout hands them over: libusb keeps the partial
 * data of a timed-out transfer.  See docs/design.md for why the QEMU rig
 * turns it off.
 */
#define DEFAULT_IN_TIMEOUT_MS 200

struct pilotd_config {
	const char *devname;
	bool match_any_palm;
	uint16_t vid, pid;
	unsigned int in_timeout_ms; /* 0: none */
};

struct pilotd {
	struct pilotd_config cfg;

	/* event loop */
	int epfd;
	struct watch sig_watch;
	bool stop;
	int exit_status;

	/* CUSE front */
	struct fuse_session *se;
	struct watch cuse_watch;
	void *fbuf_mem;
	size_t fbuf_size;
	struct pilot_file *files;
	uint64_t next_fh;
	bool carrier; /* a handheld is attached and bytes flow */
	uint64_t carrier_changes;
	bool interrupts_pending;
	uint8_t *readbuf;
	struct watch read_timer; /* VMIN/VTIME deadlines */
	uint64_t last_rx_ms;

	/* the terminal /dev/pilot pretends to be */
	struct tty tty;

	/* the stream */
	struct byteq rxq, txq;
	struct parked_list parked_reads, parked_writes;
	struct parked_list parked_ioctls; /* waiting for drain or carrier */

	/* USB transport */
	struct usb_link *usb;
};

/* main.c: the event loop */
uint64_t now_ms(void);
int loop_add(struct pilotd *pd, struct watch *w, uint32_t events);
int loop_mod(struct pilotd *pd, struct watch *w, uint32_t events);
void loop_del(struct pilotd *pd, struct watch *w);

/* cuse_front.c: /dev/pilot */
int front_start(struct pilotd *pd, const char *argv0);
void front_after_events(struct pilotd *pd);
void front_rx_ready(struct pilotd *pd); /* rxq gained bytes */
void front_carrier_up(struct pilotd *pd);
void front_hangup(struct pilotd *pd);  /* the handheld left */
void front_tx_room(struct pilotd *pd); /* txq lost bytes */
void front_shutdown(struct pilotd *pd);
void front_stop(struct pilotd *pd);

/* usb_link.c: the handheld */
int usb_link_start(struct pilotd *pd);
int usb_link_timeout_ms(struct pilotd *pd);
void usb_link_handle_events(struct pilotd *pd);
void usb_link_kick_tx(struct pilotd *pd); /* txq gained bytes */
void usb_link_rx_room(struct pilotd *pd); /* rxq lost bytes */
void usb_link_last_close(struct pilotd *pd);
size_t usb_link_tx_inflight(struct pilotd *pd);
void usb_link_counters(struct pilotd *pd, uint64_t *rx, uint64_t *tx);
void usb_link_stop(struct pilotd *pd);

#endif
