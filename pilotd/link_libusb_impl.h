/* SPDX-License-Identifier: MIT */
/*
 * What the libusb transport's two files share; not for outside them.
 */
#ifndef PILOTD_LINK_LIBUSB_IMPL_H
#define PILOTD_LINK_LIBUSB_IMPL_H

#include <libusb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/pump.h"
#include "core/setup.h"
#include "link.h"
#include "usb_fds.h"

/*
 * IN transfers are one packet (wMaxPacketSize) each, with no timeout, as
 * the kernel's usb-serial drivers read: a transfer ends on every packet,
 * so bytes a handheld sent before it paused can never wait inside a
 * half-full transfer.  They are cancelled only when nobody listens (the
 * last close: what one brings then is discarded, core/pump.c) or at a
 * stop.  Many in flight keep the pipe full.  docs/design.md "IN
 * transfers" has the trade-off.
 */
#define OUT_TRANSFER_MAX (256u * 1024)
#define CTRL_TIMEOUT_MS	 2000 /* also bounds a CLEAR_FEATURE the device does not answer */
#define ARRIVE_RETRY_MS	 100u /* a device not configured yet is opened again after */
#define ARRIVE_TRIES_MAX 50   /* so for 5 s at most */
#define REFUSED_MAX	 8    /* handhelds given up on, or not taken, while on the bus */

enum link_state {
	LINK_IDLE,	/* no handheld */
	LINK_OPENING,	/* being opened and claimed, on the opener's thread */
	LINK_HANDSHAKE, /* asking where HotSync is */
	LINK_RUNNING,	/* bytes flow */
	LINK_CLOSING,	/* waiting for cancelled transfers */
};

/*
 * Opening and claiming a handheld, on a thread of its own: both wait on
 * usbfs' device lock (link_libusb.c).  The thread reads dev and fills in
 * the rest; the loop reads them only after it ended (done is written).
 */
struct opener {
	struct watch done; /* an eventfd: the thread has ended */
	pthread_t thread;
	bool busy; /* the thread runs, or has not been joined */
	libusb_device *dev;
	libusb_device_handle *handle; /* NULL unless r is 0 */
	struct palm_endpoints eps;
	int r; /* 0 or a LIBUSB_ERROR */
};

struct usb_link {
	struct link base;
	struct link_match cfg;
	struct loop *loop;
	struct port *port;
	libusb_context *ctx;
	libusb_hotplug_callback_handle hotplug;
	struct usb_fds fds;

	libusb_device *arrived;	   /* noted by hotplug, opened by the loop */
	uint64_t arrived_retry_ms; /* not configured yet: open it again then */
	unsigned int arrived_tries;
	bool waiting; /* a handheld came while another was in use or being opened */
	/* one waited when a failure could not be kept out (REFUSED_MAX): at
	 * the next departure, look again (one scan a departure, no loop) */
	bool waiting_full;
	/* given up on or could not be taken: not taken again until plugged in again */
	libusb_device *refused[REFUSED_MAX];
	struct opener open;
	libusb_device *dev; /* from LINK_OPENING on */
	libusb_device_handle *handle;
	char name[64];
	enum link_state state;
	bool departed;	     /* noted by a callback: it left */
	const char *failure; /* noted: a call failed, let it go */
	struct palm_setup setup;
	struct palm_hotsync hs;

	struct libusb_transfer *ctrl;
	uint8_t ctrl_buf[LIBUSB_CONTROL_SETUP_SIZE + 64]; /* >= PALM_INTERRUPT_LEN_MAX */
	bool ctrl_busy;
	uint8_t halt_ep; /* of the CLEAR_FEATURE in flight, or 0 */

	struct libusb_transfer *in[PUMP_IN_MAX];
	struct libusb_transfer *out;
	uint8_t *out_buf;
	struct pump pump;
};

/* link_libusb_io.c: the pump's I/O, and the handshake's control transfers */
extern const struct pump_io usb_link_pump_io;
int usb_link_submit_ctrl(struct usb_link *l, const struct palm_ctrl *req);
/* A set-up request: a control transfer, or the interrupt IN transfer a
 * Treo 90's connection information comes in; both on l->ctrl. */
int usb_link_submit_setup(struct usb_link *l, const struct palm_ctrl *req);
void usb_link_ctrl_done(struct libusb_transfer *t);
void usb_link_start_stream(struct usb_link *l);

#endif
